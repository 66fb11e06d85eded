/**
 * Deferred result hashing and remembered hashes on every recorded real agent run
 * (../shared/trajectories, skipped when absent): each run's calls become live tool spans of a
 * real provider, as the native GenAI instrumentation would make them, and a span guard that
 * defers results and remembers recent calls and results answers every span exactly as one
 * that hashes each call and result afresh as its span ends — at OpenClaw's defaults, at the
 * recommended thresholds, and with the small-model profile.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeTrajectoryLine, trajectoryCallSpan } from '../../src/cli/readers/trajectory.js';
import {
  createDigester,
  resolveLoopDetectionConfig,
  type Digester,
  type LoopDetectionConfig,
} from '../../src/engine-entry.js';
import * as sc from '../../src/semconv.js';
import { DEFER_RESULTS_FROM } from '../../src/spans/span-reading.js';
import { STATUS_CODE_ERROR } from '../../src/spans/span-view.js';
import { TRAJECTORIES, TRAJECTORIES_MISSING, onTrajectories } from '../cli/helpers.js';
import { GuardRecorder, spanGuard } from '../helpers/guard-recorder.js';

const index = join(TRAJECTORIES, 'index.json');
const present = TRAJECTORIES_MISSING === '';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const SETTINGS: Record<string, LoopDetectionConfig> = {
  'OpenClaw defaults': { enabled: true },
  'W3/C4': { enabled: true, warningThreshold: 3, criticalThreshold: 4 },
  'small-model profile': { profile: 'small-model', enabled: true },
};

describe.skipIf(!present)(onTrajectories('deferred result hashing on the real trajectories'), () => {
  it.each(Object.keys(SETTINGS))(
    'answers every span of every run as eager hashing does (%s)',
    (name) => {
      const { trajectories, n_trajectories: count } = JSON.parse(readFileSync(index, 'utf8')) as {
        trajectories: Array<{ file: string }>;
        n_trajectories: number;
      };
      expect(trajectories).toHaveLength(count);
      const config = resolveLoopDetectionConfig(SETTINGS[name]);
      let now = 0;
      const clock = () => now;
      const recorder = new GuardRecorder([
        spanGuard(digester, config, clock, DEFER_RESULTS_FROM),
        spanGuard(digester, config, clock, Number.POSITIVE_INFINITY, undefined, false),
      ]);
      const provider = new BasicTracerProvider({ spanProcessors: [recorder] });
      const tracer = provider.getTracer('trajectories');
      let deferrable = 0;
      for (const [r, { file }] of trajectories.entries()) {
        const runId = `run-${r}`;
        const root = tracer.startSpan(
          'invoke_agent',
          { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: runId } },
          ROOT_CONTEXT,
        );
        const lines = readFileSync(join(TRAJECTORIES, file), 'utf8').split('\n');
        for (const [i, line] of lines.entries()) {
          if (line.trim() === '') continue;
          const call = decodeTrajectoryLine(JSON.parse(line), i + 1);
          if (typeof call === 'string') throw new Error(`${file}:${i + 1}: ${call}`);
          const view = trajectoryCallSpan(call);
          const { [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: result, ...atStart } = view.attributes;
          now += 1_000;
          const span = tracer.startSpan(
            view.name,
            { attributes: atStart as Record<string, string> },
            trace.setSpan(ROOT_CONTEXT, root),
          );
          if (typeof result === 'string') {
            if (result.length >= DEFER_RESULTS_FROM) deferrable += 1;
            span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, result);
          }
          if (view.status?.code === STATUS_CODE_ERROR)
            span.setStatus({ code: SpanStatusCode.ERROR, message: view.status.message ?? '' });
          span.end();
        }
        const [lazy, eager] = recorder.records([runId]);
        expect(lazy).toEqual(eager);
        root.end();
      }
      expect(deferrable).toBeGreaterThan(1000);
      expect(recorder.answers[0]).toEqual(recorder.answers[1]);
      // At the lower thresholds verdicts are reached: the comparison covers them.
      if (name !== 'OpenClaw defaults') expect(recorder.reports[1].length).toBeGreaterThan(10);
      expect(recorder.reports[0]).toEqual(recorder.reports[1]);
    },
    300_000,
  );
});
