/**
 * `node bench/run.mjs --profile`: where one variant of a span kind spends its time. Each kind in
 * `--only` (default tool-100b) runs in a process of its own under `node --cpu-prof`
 * (`profile-probe.ts`, real clocks) for `--seconds` of CPU (default 3) after a 30 000-span
 * warm-up; the samples of the measured phase are summed by function (self time) and the `--top`
 * (default 25) printed with their share and nanoseconds per span. The profile itself is kept in
 * `.bench/profiles/<kind>.<variant>.cpuprofile`, for Chrome DevTools or speedscope.
 * `--variant` picks the variant (default ours; any of the kind's, e.g. floor); `--interval`
 * the sampling interval in µs (default 100).
 * Times vary with the machine's load; the shares are what a profile is for.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchOptions, onlyOption, positiveOption, usageError } from './cli-options.js';
import { measuredKinds } from './span-kinds.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const PROFILE_DIR = join(root, '.bench', 'profiles');
const WARM_UP_SPANS = 30_000;

const options = benchOptions(
  {
    only: { type: 'string' },
    variant: { type: 'string', default: 'ours' },
    seconds: { type: 'string', default: '3' },
    interval: { type: 'string', default: '100' },
    top: { type: 'string', default: '25' },
  },
  'node bench/run.mjs --profile [--only=<kind,...>] [--variant=<name>] [--seconds=<s>] [--interval=<µs>] [--top=<n>]',
);

/** What `profile-probe.ts` prints when its measured phase ends. */
interface ProbeReport {
  readonly spans: number;
  readonly cpuUs: number;
  readonly startedUs: number;
}

/** The parts of V8's `.cpuprofile` format the summary reads. */
interface CpuProfile {
  readonly nodes: ReadonlyArray<{
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }>;
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** `function (file:line)` for a profile node, files relative to the project's root. */
function frameName({ functionName, url, lineNumber }: CpuProfile['nodes'][number]['callFrame']): string {
  if (url === '') return functionName || '(anonymous)';
  const file = url.startsWith('file://') ? relative(root, fileURLToPath(url)) : url;
  return `${functionName || '(anonymous)'} (${file}:${lineNumber + 1})`;
}

/** Self time per function over the samples taken from `fromUs` on, in µs, largest first. */
function selfTimes(profile: CpuProfile, fromUs: number): { total: number; rows: Array<[string, number]> } {
  const names = new Map(profile.nodes.map((node) => [node.id, frameName(node.callFrame)]));
  const byName = new Map<string, number>();
  let at = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i] ?? 0;
    const name = names.get(profile.samples[i]) ?? '(unknown)';
    if (at < fromUs || name === '(idle)') continue;
    // `timeDeltas[i]` is the time from the sample before to this one; the time until the next is
    // what this sample stands for (as DevTools counts it).
    const delta = profile.timeDeltas[i + 1] ?? 0;
    byName.set(name, (byName.get(name) ?? 0) + delta);
    total += delta;
  }
  return { total, rows: [...byName].sort((a, b) => b[1] - a[1]) };
}

function profileKind(kind: string, variant: string, seconds: number, interval: number, top: number): void {
  const name = `${kind}.${variant}.cpuprofile`.replace(/[^A-Za-z0-9.+-]+/g, '_');
  const child = spawnSync(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${PROFILE_DIR}`,
      `--cpu-prof-name=${name}`,
      `--cpu-prof-interval=${interval}`,
      join(here, 'profile-probe.js'),
      kind,
      variant,
      String(WARM_UP_SPANS),
      String(seconds),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (child.status !== 0) throw new Error(`${kind} / ${variant}: the profiled process exited with ${child.status}`);
  const report = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as ProbeReport;
  const file = join(PROFILE_DIR, name);
  const { total, rows } = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, report.startedUs);
  const nsPerSpan = (report.cpuUs * 1000) / report.spans;
  console.log(
    `\n${kind} / ${variant}: ${report.spans} spans, ${nsPerSpan.toFixed(0)} CPU ns per span (${(report.cpuUs / 1e6).toFixed(2)} s); ` +
      `self time of the measured phase by function (${file})`,
  );
  console.table(
    rows.slice(0, top).map(([fn, us]) => ({
      function: fn,
      'self %': ((100 * us) / total).toFixed(1),
      'ns/span': ((us / total) * nsPerSpan).toFixed(0),
    })),
  );
}

const seconds = positiveOption('seconds', options.seconds, false)!;
const interval = positiveOption('interval', options.interval, true)!;
const top = positiveOption('top', options.top, true)!;
const kinds = measuredKinds();
const only = onlyOption(
  options.only,
  kinds.map((kind) => kind.name),
) ?? ['tool-100b'];
for (const kind of kinds.filter((k) => only.includes(k.name))) {
  const names = kind.variants.map((v) => v.name);
  if (!names.includes(options.variant))
    usageError(`--variant=${options.variant}: span kind ${kind.name} has ${names.join(', ')}`);
}
mkdirSync(PROFILE_DIR, { recursive: true });
for (const kind of only) profileKind(kind, options.variant, seconds, interval, top);
