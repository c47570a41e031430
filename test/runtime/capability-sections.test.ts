import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../helpers/stores.js';
import { deleteGuardrail, insertGuardrail, type StoredGuardrail } from '../../src/features/guardrails/guardrails-repo.js';
import { insertRateLimitPolicy, updateRateLimitPolicy, type RateLimitPolicy } from '../../src/infra/store/repos/rate-limit-policies.js';
import { guardrailsSection, type GuardrailIndex } from '../../src/features/guardrails/guardrails-section.js';
import { rateLimitSection } from '../../src/features/limits/rate-limit-section.js';

const guardrail = (id: string, workspace: string): StoredGuardrail => ({
  id,
  organisation_id: 'org',
  workspace_id: workspace,
  name: id,
  slug: `s-${id}`,
  created_at: 1,
  updated_at: 1,
  checks: [{ id: 'default.contains', parameters: { words: ['x'] } }],
  actions: { deny: true },
});
const policy = (id: string, workspace: string): RateLimitPolicy => ({
  id,
  organisation_id: 'org',
  workspace_id: workspace,
  name: null,
  type: 'requests',
  unit: 'rpm',
  value: 10,
  conditions: [],
  group_by: [],
  status: 'active',
  created_at: 1,
  updated_at: 1,
});

describe.each(STORE_KINDS)('capability sections reloaded per workspace on $name', (kind) => {
  let h: StoreHandle;
  beforeAll(async () => {
    h = await kind.open();
    await h.store.db.insertInto('organisations').values({ id: 'org', name: 'o', slug: 'o', settings: '{}', created_at: 0 }).execute();
    for (const ws of ['w1', 'w2'])
      await h.store.db
        .insertInto('workspaces')
        .values({ id: ws, organisation_id: 'org', name: ws, slug: ws, status: 'active', settings: '{}', created_at: 0, updated_at: 0 })
        .execute();
  });
  afterAll(async () => h?.dispose());
  const ORG = { organisationId: 'org', workspaceIds: ['w1', 'w2'], organisationWide: true };

  it('guardrails: only the named workspace is re-read; the others and the previous index stay as they were', async () => {
    await insertGuardrail(h.store.db, ORG, guardrail('a', 'w1'));
    await insertGuardrail(h.store.db, ORG, guardrail('b', 'w2'));
    const before = await guardrailsSection().load(h.store);
    await deleteGuardrail(h.store.db, ORG, 'a');
    await insertGuardrail(h.store.db, ORG, guardrail('c', 'w1'));
    await insertGuardrail(h.store.db, ORG, guardrail('d', 'w2'));
    const after: GuardrailIndex = await guardrailsSection().loadWorkspaces!(h.store, before, ['w1']);
    expect([...after.keys()].sort()).toEqual(['w1:c', 'w1:s-c', 'w2:b', 'w2:s-b']);
    expect(after.get('w2:b')).toBe(before.get('w2:b'));
    expect(before.has('w1:a')).toBe(true);
  });

  it('rate limits: only the named workspace is re-read; the others and the previous value stay as they were', async () => {
    await insertRateLimitPolicy(h.store.db, ORG, policy('p1', 'w1'));
    await insertRateLimitPolicy(h.store.db, ORG, policy('p2', 'w2'));
    const before = await rateLimitSection.load(h.store);
    await updateRateLimitPolicy(h.store.db, ORG, 'p1', { status: 'archived' }, 2);
    await insertRateLimitPolicy(h.store.db, ORG, policy('p3', 'w2'));
    const afterW1 = await rateLimitSection.loadWorkspaces!(h.store, before, ['w1']);
    expect(afterW1.byWorkspace.has('w1')).toBe(false);
    expect(afterW1.byWorkspace.get('w2')).toBe(before.byWorkspace.get('w2'));
    expect(before.byWorkspace.get('w1')).toHaveLength(1);
    const afterW2 = await rateLimitSection.loadWorkspaces!(h.store, afterW1, ['w2']);
    expect(afterW2.byWorkspace.get('w2')).toHaveLength(2);
  });
});
