/**
 * Replaces the process's clocks with counters, for the instruction probe.
 *
 * The SDK's span times and ours come from `performance.now()`, `performance.timeOrigin` and
 * `Date.now()`. Under callgrind a span takes many times its native time, and how long depends on the
 * machine's load, so real clock values would steer the code down different branches run by run
 * (the SDK's high-resolution-time arithmetic carries or not, a stored timestamp offset fits a
 * small integer or not) and change which type feedback V8 collects — and so when it optimises
 * and deoptimises. With counters every run reads the same times, and so executes the same code.
 * Each read advances the clock by 1 µs: time moves forward, as the code under test expects.
 */
export function installFixedClock(): void {
  const origin = 1_700_000_000_000;
  let elapsed = 0;
  Object.defineProperty(performance, 'timeOrigin', { value: origin, configurable: true });
  performance.now = () => (elapsed += 0.001);
  Date.now = () => origin + Math.floor(elapsed);
}
