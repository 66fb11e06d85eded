import { createContextKey, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { setContextRun } from '../../src/otel/context-run.js';
import { HelperRequest } from '../../src/otel/helper-bridge.js';
import { ParentContexts } from '../../src/otel/parent-context.js';

const local = trace.wrapSpanContext({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
});
const remote = trace.wrapSpanContext({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: '00f067aa0ba902b7',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
});

describe('ParentContexts', () => {
  it('reads each context as it is, whichever context was read before', () => {
    const underLocal = trace.setSpan(ROOT_CONTEXT, local);
    const underRemote = trace.setSpan(ROOT_CONTEXT, remote);
    const inRun = setContextRun(underLocal, { runId: 'run-1', agentId: 'main' });
    const { request, context: asked } = HelperRequest.start(underLocal);
    // What the evidence spans set (the key is shared by every copy of the package).
    const evidence = underLocal.setValue(createContextKey('tool-loop-guard evidence span'), true);
    const expected = [
      [ROOT_CONTEXT, { evidence: false, request: undefined, parent: undefined, remoteParent: false, run: undefined }],
      [underLocal, { evidence: false, request: undefined, parent: local, remoteParent: false, run: undefined }],
      [underRemote, { evidence: false, request: undefined, parent: undefined, remoteParent: true, run: undefined }],
      [
        inRun,
        {
          evidence: false,
          request: undefined,
          parent: local,
          remoteParent: false,
          run: { runId: 'run-1', agentId: 'main' },
        },
      ],
      [asked, { evidence: false, request, parent: local, remoteParent: false, run: undefined }],
      [evidence, { evidence: true, request: undefined, parent: local, remoteParent: false, run: undefined }],
    ] as const;
    const contexts = new ParentContexts();
    // Every context after every other, and each twice in a row (children of one parent).
    for (const [first] of expected)
      for (const [context, reading] of expected) {
        contexts.read(first);
        expect(contexts.read(context)).toEqual(reading);
        expect(contexts.read(context)).toEqual(reading);
      }
  });
});
