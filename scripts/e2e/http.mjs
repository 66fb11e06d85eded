// Helpers shared by the live checks' assertions (scripts/e2e/assert.mjs, scripts/e2e/assert-serve.mjs):
// each program is asked through its own HTTP API, and polled until it shows what is expected or a deadline
// passes; each script runs one mode of assertions per call.

/**
 * Polls `probe(why)` until it returns a value other than undefined; `why(reason)` records why not yet and
 * returns undefined. On timeout throws with the last reason.
 */
export async function eventually(what, probe, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no attempt finished';
  for (;;) {
    try {
      const r = await probe((reason) => {
        last = reason;
        return undefined;
      });
      if (r !== undefined) return r;
    } catch (e) {
      last = e.message;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}: ${last}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function getJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** The value of `key` among Jaeger's `[{key, type, value}]` tags (span tags, process tags). */
export const tagOf = (tags, key) => tags.find((t) => t.key === key)?.value;

/**
 * Runs `modes[mode]()` and prints how many assertions passed (`count()`); exits 1 with the message of a
 * failed assertion, 2 with `usage` for an unknown mode or missing arguments (`argsGiven` false).
 */
export async function runMode(modes, mode, { usage, argsGiven = true, count }) {
  if (!modes[mode] || !argsGiven) {
    console.error(usage);
    process.exit(2);
  }
  try {
    await modes[mode]();
    console.log(`${mode}: ${count()} assertions passed`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
