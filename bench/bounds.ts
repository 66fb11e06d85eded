/**
 * The bounds ours is held to (issue 42), each a ratio of two variants' instructions per span on
 * one span kind, and the memory of live runs. `npm run bench` counts the probes they need and
 * reports them (`main.ts`); `npm run bench:instructions -- --all` reports those it counted.
 */
import { PROBES, type Probe } from './callgrind.js';
import { SMALL_MODEL_VARIANT } from './span-kinds.js';

/** A ratio of instructions per span: `numerator` over `denominator`, two variants of `kind`. */
export interface InstructionBound {
  readonly bound: string;
  readonly kind: string;
  readonly numerator: string;
  readonly denominator: string;
  /** The ratio must be at most this. */
  readonly goal: number;
}

export const INSTRUCTION_BOUNDS: readonly InstructionBound[] = [
  {
    bound: 'plain span in a realistic trace / no processor',
    kind: 'plain',
    numerator: 'ours',
    denominator: 'floor',
    goal: 1.05,
  },
  { bound: '~100 B tool span / no processor', kind: 'tool-100b', numerator: 'ours', denominator: 'floor', goal: 3 },
  {
    bound: '1 KB / 10 KB tool span / (no processor + JSON.parse of both)',
    kind: 'tool-10k-text-unique',
    numerator: 'ours',
    denominator: 'floor + JSON.parse',
    goal: 1.3,
  },
  {
    bound: 'the same span beside BatchSpanProcessor + OTLP protobuf',
    kind: 'tool-10k-text-unique',
    numerator: 'pipeline + ours',
    denominator: 'pipeline',
    goal: 1.1,
  },
  {
    bound: 'recommended profile / default, ~100 B tool span',
    kind: 'tool-100b',
    numerator: SMALL_MODEL_VARIANT,
    denominator: 'ours',
    goal: 1.5,
  },
  {
    bound: 'recommended profile / default, 1 KB / 10 KB tool span',
    kind: 'tool-10k-text-unique',
    numerator: SMALL_MODEL_VARIANT,
    denominator: 'ours',
    goal: 1.5,
  },
];

/** 10 000 live runs, 30 tool calls each, at most this many MB of heap and ArrayBuffers (`memory.ts`). */
export const MEMORY_GOAL_MB = 40;

/** The probes {@link INSTRUCTION_BOUNDS} need, each once, in the order of {@link PROBES}. */
export function boundProbes(): Probe[] {
  const wanted = new Set(INSTRUCTION_BOUNDS.flatMap((b) => [`${b.kind}/${b.numerator}`, `${b.kind}/${b.denominator}`]));
  return PROBES.filter((p) => wanted.has(`${p.kind}/${p.variant}`));
}

/** A row of the bounds table. */
export interface BoundRow {
  readonly bound: string;
  readonly measured: string;
  readonly goal: string;
  readonly met: 'yes' | 'no' | 'not measured';
}

/**
 * The rows of the instruction bounds, from `per` (instructions per span of a kind's variant,
 * `undefined` when it was not counted).
 */
export function instructionBoundRows(per: (kind: string, variant: string) => number | undefined): BoundRow[] {
  return INSTRUCTION_BOUNDS.map((b) => {
    const numerator = per(b.kind, b.numerator);
    const denominator = per(b.kind, b.denominator);
    const goal = `<= ${b.goal} x`;
    if (numerator === undefined || denominator === undefined)
      return { bound: b.bound, measured: '', goal, met: 'not measured' };
    const value = numerator / denominator;
    return {
      bound: b.bound,
      measured: `${value.toFixed(3)} x (${Math.round(numerator)} / ${Math.round(denominator)} Ir)`,
      goal,
      met: value <= b.goal ? 'yes' : 'no',
    };
  });
}

/** The row of the memory bound, from the MB measured (`undefined`: not measured). */
export function memoryBoundRow(mb: number | undefined, extrapolated: boolean): BoundRow {
  return {
    bound: `10 000 live runs with full histories${extrapolated ? ' (extrapolated)' : ''}`,
    measured: mb === undefined ? '' : `${mb.toFixed(2)} MB`,
    goal: `<= ${MEMORY_GOAL_MB} MB`,
    met: mb === undefined ? 'not measured' : mb <= MEMORY_GOAL_MB ? 'yes' : 'no',
  };
}
