import { describe, expect, it } from 'vitest';
import { normalizeUpdatePlanParams } from '../../../src/engine/hashing/update-plan.js';

describe('normalizeUpdatePlanParams', () => {
  it('reduces params to the status shape', () => {
    expect(
      normalizeUpdatePlanParams({
        explanation: 'Because',
        plan: [
          { step: 'Read the file', status: 'completed' },
          { step: '   ', status: 'in_progress' },
          { status: 3 },
          'not an object',
          null,
        ],
      }),
    ).toEqual({
      planLength: 5,
      statuses: ['completed', 'in_progress', null, null, null],
      stepPresence: [true, false, false, false, false],
      hasExplanation: true,
    });
  });

  it('treats a missing or non-array plan as empty and a blank explanation as absent', () => {
    const empty = { planLength: 0, statuses: [], stepPresence: [], hasExplanation: false };
    expect(normalizeUpdatePlanParams({})).toEqual(empty);
    expect(normalizeUpdatePlanParams({ plan: 'x', explanation: '  ' })).toEqual(empty);
    expect(normalizeUpdatePlanParams({ plan: [], explanation: 7 })).toEqual(empty);
  });

  it('counts sparse entries as status null with no step', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(normalizeUpdatePlanParams({ plan: [, { step: 's', status: 'pending' }] })).toEqual({
      planLength: 2,
      statuses: [null, 'pending'],
      stepPresence: [false, true],
      hasExplanation: false,
    });
  });

  it('returns non-plain-object params unchanged', () => {
    const list = [{ step: 'a' }];
    expect(normalizeUpdatePlanParams(list)).toBe(list);
    expect(normalizeUpdatePlanParams('text')).toBe('text');
    expect(normalizeUpdatePlanParams(null)).toBe(null);
    expect(normalizeUpdatePlanParams(undefined)).toBe(undefined);
  });

  it('rewording is invisible, a status change is not', () => {
    const a = normalizeUpdatePlanParams({ explanation: 'v1', plan: [{ step: 'Do A', status: 'pending' }] });
    const b = normalizeUpdatePlanParams({
      explanation: 'v2 reworded',
      plan: [{ step: 'Do A now', status: 'pending' }],
    });
    const c = normalizeUpdatePlanParams({ explanation: 'v1', plan: [{ step: 'Do A', status: 'completed' }] });
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });
});
