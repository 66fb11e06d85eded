// Builds the processor that `npm run bench -- --against=<revision|directory>` times beside this
// tree's: the `src/` of a git revision of this repository (taken with `git archive`, so the work
// tree is not touched) or of another checkout (copied), compiled with this tree's tsc into
// `.bench/against/<key>/build` (the eight most recently used are kept). The build sits under
// this tree, so it imports the same `node_modules` (the same SDK, exporter and xxhash-wasm) as
// this tree's processor: the two variants differ only in their sources.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';

/** A short, path-safe name for what is compared against: the commit for a revision, else the directory. */
function keyOf(label) {
  return (
    label
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(-80) || 'against'
  );
}

/** How many builds `.bench/against` keeps: the most recently used; older ones are removed. */
const KEPT_BUILDS = 8;
/** An extraction left this long (an interrupted run's) is removed; a younger one may be another run's. */
const STALE_PARTIAL_MS = 60 * 60 * 1000;

/**
 * Marks `dir` as just used and removes the builds beyond the {@link KEPT_BUILDS} most recently
 * used (each is a tree's sources and build, ~2 MB), and stale partial extractions.
 */
function pruneBuilds(dir) {
  const now = new Date();
  utimesSync(dir, now, now);
  const parent = join(dir, '..');
  const entries = readdirSync(parent, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ path: join(parent, entry.name), partial: entry.name.includes('.partial-') }))
    .map((entry) => ({ ...entry, used: statSync(entry.path).mtimeMs }));
  for (const entry of entries)
    if (entry.partial && now.getTime() - entry.used > STALE_PARTIAL_MS)
      rmSync(entry.path, { recursive: true, force: true });
  const builds = entries.filter((entry) => !entry.partial).sort((a, b) => b.used - a.used);
  for (const old of builds.slice(KEPT_BUILDS)) rmSync(old.path, { recursive: true, force: true });
}

/**
 * Copies a revision's `src/` into `dir/src`, kept per commit so that a re-run compiles nothing
 * new. Extracted beside it and renamed into place, so an interrupted copy is never taken for a
 * whole one.
 */
function exportRevision(root, commit, dir) {
  const src = join(dir, 'src');
  if (existsSync(src)) return src;
  const archive = spawnSync('git', ['-C', root, 'archive', '--format=tar', commit, 'src'], {
    maxBuffer: 1 << 28,
  });
  if (archive.status !== 0) throw new Error(`git archive ${commit} src: ${archive.stderr || archive.error}`);
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const untar = spawnSync('tar', ['-x', '-C', partial], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar -x into ${partial}: ${untar.stderr || untar.error}`);
  mkdirSync(dir, { recursive: true });
  renameSync(join(partial, 'src'), src);
  rmSync(partial, { recursive: true, force: true });
  return src;
}

/**
 * Resolves `spec` (a git revision of the tree at `root`, or a checkout's directory), compiles its
 * `src/` and returns `{ label, entry }`: what the bench prints, and the built `index.js` to import.
 * Throws with a message saying what was not found or failed to build.
 */
export function buildAgainst(root, spec, tsc) {
  let label;
  let src;
  let dir;
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    const theirs = join(resolve(spec), 'src');
    if (!existsSync(join(theirs, 'index.ts'))) throw new Error(`--against=${spec}: no src/index.ts in that directory`);
    label = resolve(spec);
    dir = join(root, '.bench', 'against', keyOf(label));
    // Copied under this tree, as a revision's is: tsc emits ES modules for sources in this
    // package's scope, and a directory outside any package (a scratch copy of src/) would
    // otherwise be compiled to CommonJS, which the bench cannot import. Afresh each run, so that
    // files deleted there are gone here.
    src = join(dir, 'src');
    rmSync(src, { recursive: true, force: true });
    cpSync(theirs, src, { recursive: true });
  } else {
    const parsed = spawnSync('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `${spec}^{commit}`], {
      encoding: 'utf8',
    });
    if (parsed.status !== 0)
      throw new Error(`--against=${spec}: neither a directory nor a revision of this repository`);
    const commit = parsed.stdout.trim();
    label = commit.startsWith(spec) ? commit.slice(0, 7) : `${spec} (${commit.slice(0, 7)})`;
    dir = join(root, '.bench', 'against', commit);
    src = exportRevision(root, commit, dir);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: {
        rootDir: src,
        outDir: join(dir, 'build'),
        noEmit: false,
        declaration: false,
        sourceMap: false,
        incremental: true,
        tsBuildInfoFile: join(dir, 'build', '.tsbuildinfo'),
        typeRoots: [join(root, 'node_modules', '@types')],
      },
      include: [join(src, '**', '*.ts')],
    }),
  );
  const build = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
  const entry = join(dir, 'build', 'index.js');
  if (build.error || !existsSync(entry))
    throw new Error(`--against=${spec}: tsc emitted no build/index.js\n${build.stdout}${build.error ?? ''}`);
  // Another tree's sources may not type-check against this tree's dependencies; tsc still emits,
  // and what it emitted is what runs.
  if (build.status !== 0) console.warn(`bench: type errors in ${label} (tsc still emitted; measuring that)`);
  pruneBuilds(dir);
  return { label, entry };
}
