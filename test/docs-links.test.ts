/**
 * The README and docs are read where the package is: in the repository and in the published
 * tarball. Every relative link must land on a file (and heading) that is there, the docs index
 * must list every doc, and no user doc may send readers to files that never ship.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, resolve, sep } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, walkTokens, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const INDEX = 'docs/README.md';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Markdown files under `dir` (repository-relative, `/`-separated). */
function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => posix.join(dir, name.split(sep).join('/')))
    .sort();
}

const DOCS = ['README.md', 'SECURITY.md', ...markdownUnder('docs')];

const lex = (markdown: string): Token[] => new Lexer({ gfm: true }).lex(markdown);

/** The text a heading or link shows, without its markup (what GitHub slugs). */
function plainText(token: Token): string {
  const children = (token as { tokens?: Token[] }).tokens;
  if (children) return children.map(plainText).join('');
  return 'text' in token && typeof token.text === 'string' ? token.text : '';
}

interface Link {
  readonly href: string;
  readonly text: string;
}

/** Links and images anywhere in the markdown (text, lists, tables), not in code. */
function linksIn(tokens: Token[]): Link[] {
  const links: Link[] = [];
  void walkTokens(tokens, (token) => {
    if (token.type === 'link' || token.type === 'image') {
      const link = token as Tokens.Link | Tokens.Image;
      links.push({ href: link.href, text: plainText(link) });
    }
  });
  return links;
}

/** The anchors GitHub gives the markdown's headings. */
function anchorsIn(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  void walkTokens(lex(markdown), (token) => {
    if (token.type === 'heading') anchors.add(slugger.slug(plainText(token)));
  });
  return anchors;
}

const isRelative = (href: string) => !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('//');

/** Where a relative link from `file` points: the target (repository-relative) and its anchor. */
function targetOf(file: string, href: string): { path: string; anchor?: string } {
  const hash = href.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? href : href.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(href.slice(hash + 1));
  const path = pathPart === '' ? file : posix.normalize(posix.join(posix.dirname(file), pathPart)).replace(/\/$/, '');
  return { path, anchor };
}

interface Tree {
  exists(path: string): boolean;
  /** The markdown of `path`, to find its headings. */
  markdown(path: string): string;
}

const repository: Tree = { exists: (path) => existsSync(join(ROOT, path)), markdown: read };

/** What is wrong with each relative link of `file` (whose text is `markdown`), in `tree`. */
function brokenLinks(file: string, markdown: string, tree: Tree): string[] {
  return linksIn(lex(markdown))
    .filter((link) => isRelative(link.href))
    .flatMap((link) => {
      const { path, anchor } = targetOf(file, link.href);
      const where = `${file}: [${link.text}](${link.href})`;
      if (path === '..' || path.startsWith('../')) return [`${where} leaves the package`];
      if (path !== file && !tree.exists(path)) return [`${where}: ${path} is not there`];
      if (
        anchor !== undefined &&
        path.endsWith('.md') &&
        !anchorsIn(path === file ? markdown : tree.markdown(path)).has(anchor)
      )
        return [`${where}: ${path} has no heading #${anchor}`];
      return [];
    });
}

/** The docs the index lists in its `##` section whose title matches `heading`. */
function indexed(heading: RegExp): string[] {
  const tokens = lex(read(INDEX));
  const isSection = (token: Token) => token.type === 'heading' && (token as Tokens.Heading).depth === 2;
  const start = tokens.findIndex((token) => isSection(token) && heading.test(plainText(token)));
  if (start < 0) throw new Error(`${INDEX} has no section matching ${String(heading)}`);
  const end = tokens.findIndex((token, index) => index > start && isSection(token));
  return linksIn(tokens.slice(start, end < 0 ? undefined : end))
    .filter((link) => isRelative(link.href))
    .map((link) => targetOf(INDEX, link.href).path);
}

/** The README, SECURITY.md, the index and the docs it lists for users. */
const userDocs = () => [...new Set(['README.md', 'SECURITY.md', INDEX, ...indexed(/users/i)])];

describe('the link checker', () => {
  it('reports a missing file, a missing heading, a link out of the package; not a good link', () => {
    const tree: Tree = {
      exists: (path) => path === 'README.md',
      markdown: (path) => (path === 'README.md' ? '# Title\n\n## Development' : ''),
    };
    const markdown = [
      '# Here',
      '[gone](missing.md) [no heading](../README.md#no-such-heading) [out](../../shared/spec/x.md)',
      '| a | b |\n|---|---|\n| [in a table](#not-here) | [fine](#here) |',
      '`[in code](missing.md)` and [the README](../README.md), [its section](../README.md#development)',
    ].join('\n\n');
    expect(brokenLinks('docs/x.md', markdown, tree)).toEqual([
      'docs/x.md: [gone](missing.md): docs/missing.md is not there',
      'docs/x.md: [no heading](../README.md#no-such-heading): README.md has no heading #no-such-heading',
      'docs/x.md: [out](../../shared/spec/x.md) leaves the package',
      'docs/x.md: [in a table](#not-here): docs/x.md has no heading #not-here',
    ]);
  });

  it('anchors headings as GitHub does: lower case, code marks and punctuation dropped, repeats numbered', () => {
    expect([...anchorsIn('## Vercel AI SDK v7 (`@ai-sdk/otel`)\n\n## Options\n\n### Options')]).toEqual([
      'vercel-ai-sdk-v7-ai-sdkotel',
      'options',
      'options-1',
    ]);
  });
});

describe('README and docs links', () => {
  it.each(DOCS)('every relative link in %s resolves to a file and heading of the repository', (file) => {
    expect(brokenLinks(file, read(file), repository)).toEqual([]);
  });

  it('the README, SECURITY.md and the docs ship with the package, and user docs link only to what ships', () => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const [packed] = JSON.parse(
      execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
    ) as [{ files: { path: string }[] }];
    const published = packed.files.map((entry) => entry.path);
    expect(DOCS.filter((file) => !published.includes(file))).toEqual([]);
    const tarball: Tree = {
      exists: (path) => published.some((file) => file === path || file.startsWith(`${path}/`)),
      markdown: read,
    };
    expect(userDocs().flatMap((file) => brokenLinks(file, read(file), tarball))).toEqual([]);
  });
});

describe('the docs index', () => {
  it('lists every doc once, for users or for contributors', () => {
    const listed = [...indexed(/users/i), ...indexed(/contributors/i)]
      .filter((file) => file.startsWith('docs/'))
      .sort();
    expect(listed).toEqual(DOCS.filter((file) => file.startsWith('docs/') && file !== INDEX));
  });
});

describe('user docs', () => {
  it.each(userDocs())('%s points at nothing that does not ship: no ../shared path, no DESIGN.md', (file) => {
    const text = read(file);
    expect(text).not.toMatch(/\.\.\/shared\b/);
    expect(text).not.toMatch(/\bDESIGN(\.md\b| §)/);
  });

  it('the README stays a front page: at most 250 lines', () => {
    expect(read('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});
