/**
 * One variant of one span kind, run under `node --cpu-prof` by `profile.ts`:
 * `profile-probe.js <kind> <variant> <warm-up spans> <measured CPU seconds>`.
 *
 * Real clocks (the instruction probe's counters would profile code users never run). After the
 * warm-up it runs spans in small batches until the process has spent the measured seconds of
 * CPU since, then prints one JSON line: the spans, that CPU time, and when the measured phase
 * began on the profile's clock (`process.hrtime`, in µs, the clock V8's samples are stamped
 * with), so that the profile's start-up and warm-up samples can be left out.
 */
const { findVariant } = await import('./span-kinds.js');
const [kindName, variantName, warm, seconds] = process.argv.slice(2);
const { kind, variant } = await findVariant(kindName, variantName);
const batch = await variant.make();
await batch(Number(warm));
const since = process.cpuUsage();
const startedUs = Number(process.hrtime.bigint() / 1000n);
const cpuUs = () => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};
// Batches double until one takes 20 ms, so that reading the CPU time between them stays out of
// the profile whether a span takes 4 µs or 40 ms.
let spans = 0;
let chunk = variant.quantum ?? 1;
for (let used = 0, before = 0; used < Number(seconds) * 1e6; before = used) {
  await batch(chunk);
  spans += chunk;
  used = cpuUs();
  if (used - before < 20_000) chunk *= 2;
}
const problems = kind.problems();
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(2);
}
console.log(JSON.stringify({ spans, cpuUs: cpuUs(), startedUs }));
