/**
 * Deterministic workload data: span attributes, 1 KB tool arguments, 10 KB and 1 MB tool
 * results. Everything is generated once, before timing starts, from a fixed-seed PRNG.
 */

/** mulberry32: a tiny deterministic PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'const let function return import export from await async class extends interface type ' +
  'error warning info debug request response status path file line column value result ' +
  'agent tool call loop history window hash digest span trace event metric run session'
).split(' ');

/** Source-code-like text: lines of words with punctuation, quotes, tabs and newlines (JSON escapes). */
export function codeText(chars: number, seed: number): string {
  const next = prng(seed);
  const lines: string[] = [];
  let total = 0;
  let n = 0;
  while (total < chars) {
    const indent = '  '.repeat(Math.floor(next() * 4));
    const words: string[] = [];
    const count = 3 + Math.floor(next() * 9);
    for (let i = 0; i < count; i += 1) words.push(WORDS[Math.floor(next() * WORDS.length)]);
    let line = `${indent}${words.join(' ')}`;
    if (next() < 0.3) line += ` = "${WORDS[Math.floor(next() * WORDS.length)]}-${n}";`;
    else if (next() < 0.2) line += `\t// ${n}`;
    else line += ';';
    lines.push(line);
    total += line.length + 1;
    n += 1;
  }
  return lines.join('\n').slice(0, chars);
}

/** About 1 KB of tool arguments as JSON text (a `write`-like call). Variant `i` differs in content. */
export function argsJson(i: number): string {
  return JSON.stringify({
    path: `/repo/src/module-${i}/index.ts`,
    mode: 'overwrite',
    createDirectories: true,
    encoding: 'utf8',
    content: codeText(840, 1000 + i),
    tags: ['bench', `variant-${i}`],
  });
}

/** About 10 KB of OpenClaw-shaped tool result text (`{content:[{type,text}], details}`). */
export function textResultJson(i: number, chars = 10 * 1024): string {
  const details = { status: 'ok', path: `/repo/src/module-${i}/index.ts`, bytes: chars, lines: Math.round(chars / 40) };
  // Leave room for the JSON envelope and the escapes so that the text is ~chars long.
  return JSON.stringify({ content: [{ type: 'text', text: codeText(chars - 260, 2000 + i) }], details });
}

/** About 10 KB of structured tool result (search hits: many small strings and numbers). */
export function structuredResultJson(i: number, chars = 10 * 1024): string {
  const next = prng(3000 + i);
  const hits: unknown[] = [];
  for (let n = 0; ; n += 1) {
    hits.push({
      title: `${WORDS[Math.floor(next() * WORDS.length)]} ${WORDS[Math.floor(next() * WORDS.length)]} — result ${n}`,
      url: `https://example.com/docs/${i}/${n}/${WORDS[Math.floor(next() * WORDS.length)]}`,
      score: Math.round(next() * 10000) / 10000,
      snippet: codeText(90, 4000 + i * 100 + n).replace(/\n/g, ' '),
      rank: n + 1,
      cached: next() < 0.5,
    });
    const json = JSON.stringify({ query: `bench query ${i}`, total: hits.length, hits });
    if (json.length >= chars) return json;
  }
}

/** An HTTP server span's 10 attributes (the root of the plain trace). */
export function httpAttributes(i: number): Record<string, string | number | boolean> {
  return {
    'http.request.method': 'GET',
    'http.route': '/api/items/:id',
    'url.path': `/api/items/${i}`,
    'url.scheme': 'https',
    'server.address': 'api.example.com',
    'server.port': 443,
    'client.address': '10.0.0.12',
    'user_agent.original': 'Mozilla/5.0 (X11; Linux x86_64) bench',
    'http.response.status_code': 200,
    'network.protocol.version': '1.1',
  };
}

/** An HTTP client span's 10 attributes (a call the server makes: `k` from 0 to 3 picks the peer). */
export function httpClientAttributes(i: number, k: number): Record<string, string | number | boolean> {
  const host = ['users.internal', 'inventory.internal', 'pricing.internal', 'search.internal'][k & 3];
  return {
    'http.request.method': k === 3 ? 'POST' : 'GET',
    'url.full': `https://${host}/v1/items/${i}?fields=all`,
    'url.scheme': 'https',
    'server.address': host,
    'server.port': 443,
    'network.peer.address': `10.0.${k}.${(i % 250) + 1}`,
    'network.protocol.name': 'http',
    'network.protocol.version': '1.1',
    'http.response.status_code': 200,
    'http.request.resend_count': 0,
  };
}

/** About 100 B of tool arguments, distinct for each `i`. */
export function smallArgsJson(i: number): string {
  return JSON.stringify({
    path: `/repo/src/module-${i}/file-${i % 97}.ts`,
    offset: i % 4000,
    limit: 200,
    encoding: 'utf8',
  });
}

/** About 100 B of tool result, distinct for each `i`. */
export function smallResultJson(i: number): string {
  return JSON.stringify({
    content: [{ type: 'text', text: `ok: ${i} lines read` }],
    details: { status: 'ok', lines: i % 1000 },
  });
}
