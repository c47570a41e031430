import { describe, expect, it } from 'vitest';
import type { StoredGuardrail } from './guardrails-repo.js';
import { GUARDRAIL_LISTS, fromStored, keyPath, planItem, type ItemPlan } from './guardrail-spec.js';
import { thrown } from './test-support.js';

const [input, before, output, after] = GUARDRAIL_LISTS;

const stored = (over: Partial<StoredGuardrail> = {}): StoredGuardrail => ({
  id: 'g1',
  organisation_id: 'o',
  workspace_id: 'w',
  name: 'n',
  slug: 's',
  created_at: 0,
  updated_at: 0,
  checks: [{ id: 'default.contains', parameters: { words: ['x'] } }],
  actions: { deny: true, on_fail: { feedback: { value: -1 } } },
  ...over,
});

describe('planItem', () => {
  it('turns a guardrail object into checks (extra keys) and actions', () => {
    const plan = planItem(
      input!,
      { 'default.contains': { words: ['a'] }, 'default.wordCount': { maxWords: 3 }, deny: true, on_success: { feedback: { value: 1 } } },
      'config.input_guardrails[0]',
    );
    expect(plan).toEqual({
      kind: 'inline',
      guardrail: {
        id: 'config.input_guardrails[0]',
        path: 'config.input_guardrails[0]',
        event: 'beforeRequestHook',
        checks: [
          { id: 'default.contains', parameters: { words: ['a'] } },
          { id: 'default.wordCount', parameters: { maxWords: 3 } },
        ],
        denyOnFail: true,
        denyOnSuccess: false,
        async: false,
        onFailFeedback: undefined,
        onSuccessFeedback: { value: 1 },
        storedId: undefined,
      },
    });
  });

  it('reads deny under on_fail for hooks, and on_success.deny literally', () => {
    const plan = planItem(
      before!,
      { id: 'h', checks: [{ id: 'default.notNull', parameters: {} }], on_fail: { deny: true }, on_success: { deny: true } },
      'p',
    ) as Extract<ItemPlan, { kind: 'inline' }>;
    expect(plan.guardrail).toMatchObject({ id: 'h', denyOnFail: true, denyOnSuccess: true, checks: [{ id: 'default.notNull' }] });
    const noDeny = planItem(after!, { id: 'h', async: true, checks: [{ id: 'default.notNull', parameters: {} }] }, 'p') as Extract<
      ItemPlan,
      { kind: 'inline' }
    >;
    expect(noDeny.guardrail).toMatchObject({ denyOnFail: false, async: true, event: 'afterRequestHook' });
  });

  it('strings, hooks without checks and objects with only id are stored references', () => {
    expect(planItem(output!, 'gr-1', 'p')).toEqual({ kind: 'ref', ref: 'gr-1', path: 'p', event: 'afterRequestHook', overrides: {} });
    expect(planItem(before!, { id: 'gr-2', on_fail: { deny: false } }, 'p')).toMatchObject({
      kind: 'ref',
      ref: 'gr-2',
      overrides: { on_fail: { deny: false } },
    });
    expect(planItem(input!, { id: 'gr-3', async: true }, 'p')).toMatchObject({ kind: 'ref', ref: 'gr-3', overrides: { async: true } });
  });
});

describe('fromStored', () => {
  const ref = (overrides = {}, event: 'beforeRequestHook' | 'afterRequestHook' = 'beforeRequestHook') => ({
    kind: 'ref' as const,
    ref: 's',
    path: 'config.input_guardrails[0]',
    event,
    overrides,
  });

  it('uses the stored checks and actions', () => {
    expect(fromStored(stored(), ref())).toMatchObject({
      id: 'g1',
      storedId: 'g1',
      denyOnFail: true,
      onFailFeedback: { value: -1 },
      checks: [{ id: 'default.contains' }],
    });
  });

  it("lets the item's own actions override the stored ones, field by field", () => {
    const g = fromStored(stored(), ref({ on_fail: { deny: false } }));
    expect(g.denyOnFail).toBe(true); // the stored top-level deny still applies
    const h = fromStored(stored({ actions: { on_fail: { deny: true, feedback: { value: -1 } } } }), ref({ on_fail: { deny: false } }));
    expect(h).toMatchObject({ denyOnFail: false, onFailFeedback: { value: -1 } });
    expect(fromStored(stored(), ref({ deny: false })).denyOnFail).toBe(false);
  });

  it('refuses a stored check that cannot run in the event', () => {
    const err = thrown(() => fromStored(stored({ checks: [{ id: 'default.notNull', parameters: {} }] }), ref()));
    expect(err).toMatchObject({ code: 'invalid_config', param: 'config.input_guardrails[0]' });
  });
});

describe('keyPath', () => {
  it('quotes keys that are not identifiers', () => {
    expect(keyPath('default.contains')).toBe('["default.contains"]');
    expect(keyPath('checks')).toBe('.checks');
  });
});
