/**
 * The CPU time this process has spent on a core, in nanoseconds (µs resolution).
 *
 * On a shared machine a batch's wall time includes the time it waited for a core, which depends
 * on the other tenants, not on the code; CPU time does not. Node 20 has no per-thread CPU clock
 * (`process.threadCpuUsage` came in Node 23.9), and Linux's per-thread figure in
 * `/proc/thread-self/schedstat` advances only at scheduler ticks (4 ms), too coarse for a batch.
 * `process.cpuUsage()` (getrusage) is exact to the microsecond and also counts V8's helper
 * threads, so concurrent marking and background compilation are charged to the batch that
 * runs while they run — part of the garbage-collection cost the bench means to include.
 */
export interface CpuClock {
  readonly kind: 'process';
  now(): number;
}

export function cpuClock(): CpuClock {
  return {
    kind: 'process',
    now: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) * 1000;
    },
  };
}
