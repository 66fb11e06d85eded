/** `RunScopes`: a span's run is its own run id, else its nearest live ancestor's, else its trace. */
import { describe, expect, it } from 'vitest';
import type { RunScopeHint } from '../../src/spans/adapters/adapter.js';
import { explicitRunKey, RunScopes, traceRunKey, type SpanScope } from '../../src/spans/run-scope.js';

/** A span-like object with ids, as the SDK's spans and replayed spans are. */
function span(traceId: string, spanId: string, recording = true) {
  const ids = { traceId, spanId };
  return { ids, spanContext: () => ids, isRecording: () => recording };
}

describe('RunScopes', () => {
  it('a span with a run id opens that run; its descendants join it without opening it', () => {
    const scopes = new RunScopes();
    const root = span('t1', 'a');
    const rootScope = scopes.resolve(root, root.ids, {}, { hint: { runId: 'job-1', agentId: 'agent' } });
    expect(rootScope).toMatchObject({ runKey: 'job-1', runId: 'job-1', agentId: 'agent', isRunRoot: true });
    expect(rootScope.descendants).toEqual({ runKey: 'job-1', runId: 'job-1', agentId: 'agent', isRunRoot: false });
    const tool = span('t1', 'b');
    expect(scopes.resolve(tool, tool.ids, { parent: root }, { hint: undefined, joinsOnly: true })).toEqual({
      runKey: 'job-1',
      runId: 'job-1',
      agentId: 'agent',
      isRunRoot: false,
    });
    const grandchild = span('t1', 'c');
    scopes.inherit(grandchild, 'c', tool);
    expect(scopes.get(grandchild)).toEqual({ runKey: 'job-1', runId: 'job-1', agentId: 'agent', isRunRoot: false });
  });

  it('without any run hint a span is in its trace’s scope, and nothing is remembered for it', () => {
    const scopes = new RunScopes();
    const plain = span('t2', 'a');
    expect(scopes.resolve(plain, plain.ids, {}, { hint: undefined, joinsOnly: true })).toEqual({
      runKey: traceRunKey('t2'),
      runId: 't2',
      isRunRoot: false,
    });
    expect(scopes.get(plain)).toBeUndefined();
  });

  it('a run boundary without an id opens a run keyed <traceId>/<spanId>; a tool call (joinsOnly) never opens one', () => {
    const scopes = new RunScopes();
    const boundary = span('t3', 'a');
    expect(scopes.resolve(boundary, boundary.ids, {}, { hint: { startsRun: true } })).toMatchObject({
      runKey: '\u0000s:t3/a',
      runId: 't3/a',
      isRunRoot: true,
    });
    const toolAtRoot = span('t4', 'b');
    expect(scopes.resolve(toolAtRoot, toolAtRoot.ids, {}, { hint: { startsRun: true }, joinsOnly: true })).toEqual({
      runKey: traceRunKey('t4'),
      runId: 't4',
      isRunRoot: false,
    });
  });

  it('a child whose parent is only a wrapper of the parent’s span context finds the parent’s scope by span id', () => {
    const scopes = new RunScopes();
    const root = span('t5', 'p');
    scopes.resolve(root, root.ids, {}, { hint: { runId: 'job-5' } });
    const wrapper = span('t5', 'p', false); // what trace.setSpanContext puts in a context
    const child = span('t5', 'c');
    expect(scopes.resolve(child, child.ids, { parent: wrapper }, { hint: undefined, joinsOnly: true }).runKey).toBe(
      'job-5',
    );
  });

  it('a run root is remembered by its descendants’ scope alone, and still closes its run', () => {
    const scopes = new RunScopes();
    const root = span('t11', 'a');
    const opened = scopes.resolve(root, root.ids, {}, { hint: { runId: 'job-11' } });
    expect(opened.isRunRoot).toBe(true);
    expect(scopes.get(root)).toBe(opened.descendants);
    const child = span('t11', 'b');
    expect(scopes.resolve(child, child.ids, { parent: root }, { hint: undefined, joinsOnly: true })).toBe(
      opened.descendants,
    );
    expect(scopes.closedBy(child)).toBeUndefined();
    expect(scopes.closedBy(root, 't11')).toBe('job-11');
  });

  it('closedBy names the run a root closes, or the trace for a trace root in the default scope', () => {
    const scopes = new RunScopes();
    const root = span('t6', 'a');
    scopes.resolve(root, root.ids, {}, { hint: { runId: 'job-6' } });
    const child = span('t6', 'b');
    scopes.resolve(child, child.ids, { parent: root }, { hint: undefined, joinsOnly: true });
    expect(scopes.closedBy(child)).toBeUndefined();
    expect(scopes.closedBy(root, 't6')).toBe('job-6');
    const traceRoot = span('t7', 'a');
    expect(scopes.closedBy(traceRoot, 't7')).toBe(traceRunKey('t7'));
    // A span with a parent that entered from no other process closes nothing.
    expect(scopes.closedBy(span('t8', 'x'))).toBeUndefined();
  });

  it('a span under a remote parent enters the trace: its calls are a run of their own, closed by its end', () => {
    const scopes = new RunScopes();
    const first = span('t9', 'e1');
    const second = span('t9', 'e2');
    const a = scopes.enter(first, first.ids);
    const b = scopes.enter(second, second.ids);
    expect(a.runKey).not.toBe(b.runKey);
    expect(a).toMatchObject({ runId: 't9', isRunRoot: true });
    const call = span('t9', 'c');
    expect(scopes.resolve(call, call.ids, { parent: first }, { hint: undefined, joinsOnly: true }).runKey).toBe(
      a.runKey,
    );
    expect(scopes.closedBy(first)).toBe(a.runKey);
  });

  it('explicit run ids and derived keys never meet', () => {
    const scopes = new RunScopes();
    const explicit = span('t10', 'a');
    const asTrace = scopes.resolve(explicit, explicit.ids, {}, { hint: { runId: 't10' } });
    expect(asTrace.runKey).not.toBe(traceRunKey('t10'));
    expect(explicitRunKey(traceRunKey('t10'))).not.toBe(traceRunKey('t10'));
  });
});

describe('RunScopes held scopes', () => {
  /** Scopes whose caller keeps the scopes of `held` spans itself, as the span guard does a tool span's. */
  function withHeld() {
    const kept = new Map<ReturnType<typeof span>, SpanScope>();
    const scopes = new RunScopes(
      undefined,
      undefined,
      (s) => kept.get(s as ReturnType<typeof span>),
      (spanId) => [...kept].find(([s]) => s.ids.spanId === spanId)?.[1],
    );
    const resolveHeld = (s: ReturnType<typeof span>, hint: RunScopeHint | undefined, parent: object) => {
      const scope = scopes.resolve(s, s.ids, { parent }, { hint, joinsOnly: true, held: true });
      kept.set(s, scope);
      return scope;
    };
    return { scopes, kept, resolveHeld };
  }

  it('a held span’s children find its scope through the caller, or by its span id under a wrapper', () => {
    const { scopes, kept, resolveHeld } = withHeld();
    const root = span('h1', 'r');
    scopes.resolve(root, root.ids, {}, { hint: { runId: 'job-h1' } });
    const tool = span('h1', 't');
    expect(resolveHeld(tool, undefined, root).runKey).toBe('job-h1');
    expect(scopes.get(tool)?.runKey).toBe('job-h1');
    const child = span('h1', 'c');
    expect(scopes.resolve(child, child.ids, { parent: tool }, { hint: undefined, joinsOnly: true }).runKey).toBe(
      'job-h1',
    );
    const underWrapper = span('h1', 'w');
    expect(
      scopes.resolve(
        underWrapper,
        underWrapper.ids,
        { parent: span('h1', 't', false) },
        { hint: undefined, joinsOnly: true },
      ).runKey,
    ).toBe('job-h1');
    // Once it ended, neither the caller nor the span-id map answers for it.
    kept.delete(tool);
    expect(scopes.get(tool)).toBeUndefined();
    const late = span('h1', 'l');
    expect(
      scopes.resolve(late, late.ids, { parent: span('h1', 't', false) }, { hint: undefined, joinsOnly: true }).runKey,
    ).toBe(traceRunKey('h1'));
    expect(scopes.closedBy(tool)).toBeUndefined();
  });

  it('a held span with a run id of its own passes it on; its end closes no run', () => {
    const { scopes, resolveHeld } = withHeld();
    const root = span('h2', 'r');
    scopes.resolve(root, root.ids, {}, { hint: undefined });
    const tool = span('h2', 't');
    expect(resolveHeld(tool, { runId: 'job-h2' }, root)).toMatchObject({ runKey: 'job-h2', isRunRoot: false });
    const child = span('h2', 'c');
    expect(scopes.resolve(child, child.ids, { parent: tool }, { hint: undefined, joinsOnly: true }).runKey).toBe(
      'job-h2',
    );
    expect(scopes.closedBy(tool)).toBeUndefined();
  });

  it('a held span is remembered by its span id only once handed back, and until its end forgets it', () => {
    const scopes = new RunScopes(
      undefined,
      undefined,
      () => undefined,
      () => undefined,
    );
    const root = span('h4', 'r');
    scopes.resolve(root, root.ids, {}, { hint: { runId: 'job-h4' } });
    const tool = span('h4', 't');
    const scope = scopes.resolve(tool, tool.ids, { parent: root }, { hint: undefined, joinsOnly: true, held: true });
    const wrapper = span('h4', 't', false);
    const before = span('h4', 'b');
    // Held: the run scopes leave it to the caller (which answers nothing here).
    expect(scopes.resolve(before, before.ids, { parent: wrapper }, { hint: undefined, joinsOnly: true }).runKey).toBe(
      traceRunKey('h4'),
    );
    scopes.rememberById('t', scope);
    const after = span('h4', 'a');
    expect(scopes.resolve(after, after.ids, { parent: wrapper }, { hint: undefined, joinsOnly: true }).runKey).toBe(
      'job-h4',
    );
    expect(scopes.forget(tool)).toBe(true);
    const late = span('h4', 'l');
    expect(scopes.resolve(late, late.ids, { parent: wrapper }, { hint: undefined, joinsOnly: true }).runKey).toBe(
      traceRunKey('h4'),
    );
  });

  it('a span asked to be held without a live parent is remembered as any other', () => {
    const scopes = new RunScopes(undefined, undefined, () => undefined);
    const tool = span('h3', 't');
    scopes.resolve(tool, tool.ids, {}, { hint: { runId: 'job-h3' }, joinsOnly: true, held: true });
    expect(scopes.get(tool)?.runKey).toBe('job-h3');
  });
});

describe('RunScopes span-id map', () => {
  it('holds live spans only: an ended span frees its entry, so the cap is never reached by spans that end', () => {
    const full: number[] = [];
    const scopes = new RunScopes(2, (limit) => full.push(limit));
    for (let i = 0; i < 10; i += 1) {
      const root = span('t', `s${i}`);
      scopes.resolve(root, root.ids, {}, { hint: { runId: `run-${i}` } });
      scopes.closedBy(root, 't');
    }
    expect(full).toEqual([]);
  });

  it('reports reaching its cap once', () => {
    const full: number[] = [];
    const scopes = new RunScopes(2, (limit) => full.push(limit));
    for (let i = 0; i < 5; i += 1) {
      const root = span('t', `s${i}`);
      scopes.resolve(root, root.ids, {}, { hint: { runId: `run-${i}` } });
    }
    expect(full).toEqual([2]);
  });
});
