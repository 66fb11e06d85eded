/**
 * One variant of one span kind, run under callgrind by `instructions.ts`:
 * `instruction-probe.js <kind> <variant> <warm-up spans> <measured spans> [<against entry> [<ours entry>]]`
 * (the entries, of builds `run.mjs --against` made, give the kind's A/B variants: `against`, and
 * `ours` from that build instead of this tree).
 *
 * JavaScript cannot send callgrind client requests, so the phases are marked by calls to
 * `process.cpuUsage()`, whose C++ entry (`node::CPUUsage`) callgrind is told to dump before:
 * the first dump holds start-up, set-up and warm-up, the second exactly the measured spans.
 * Nothing else in the probe calls `process.cpuUsage()`. The clocks are replaced before the SDK
 * loads (`fixed-clock.ts`), so that every run executes the same code.
 */
import { installFixedClock } from './fixed-clock.js';

installFixedClock();
const { findVariant } = await import('./span-kinds.js');
const [kindName, variantName, warm, measured, againstEntry, oursEntry] = process.argv.slice(2);
const { kind, variant } = await findVariant(kindName, variantName, againstEntry, oursEntry);
const batch = await variant.make();
await batch(Number(warm));
process.cpuUsage();
await batch(Number(measured));
process.cpuUsage();
const problems = kind.problems();
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(2);
}
process.exit(0);
