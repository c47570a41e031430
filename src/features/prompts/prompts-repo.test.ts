import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../../infra/store/repos/organisations.js';
import { isUniqueViolation } from '../../infra/store/store.js';
import {
  addPromptVersion,
  deletePrompt,
  getPrompt,
  getPromptVersion,
  insertPrompt,
  listPrompts,
  listPromptVersions,
  loadAllPrompts,
  publishPromptVersion,
  updatePrompt,
  type StoredPrompt,
  type VersionFields,
} from './prompts-repo.js';

describe.each(STORE_KINDS)('prompts repository on $name', (kind) => {
  let h: StoreHandle;
  let orgId: string;
  let wsId: string;

  beforeAll(async () => {
    h = await kind.open();
    const t = await ensureDefaultTenant(h.store, 1000);
    orgId = t.organisation.id;
    wsId = t.workspace.id;
  });
  afterAll(async () => h?.dispose());

  const scope = (workspaceIds: string[] = [wsId], organisationId = orgId) => ({ organisationId, workspaceIds, organisationWide: false });

  const record = (id: string, slug: string, k: StoredPrompt['kind'] = 'prompt', at = 2000): StoredPrompt => ({
    id,
    organisation_id: orgId,
    workspace_id: wsId,
    kind: k,
    name: `name ${slug}`,
    slug,
    published_version: 1,
    latest_version: 1,
    virtual_key: 'vk-main',
    provider: null,
    created_at: at,
    updated_at: at,
  });
  const v1: VersionFields = {
    template: 'Hello {{name}}',
    parameters: { temperature: 0.5, max_completion_tokens: 10 },
    model: 'gpt-4o',
    metadata: { team: 'a' },
    description: 'first',
  };

  it('round-trips a prompt, its versions, publishing and prompt-level changes', async () => {
    await insertPrompt(h.store.db, scope(), record('p-1', 'greeter'), v1);
    const got = await getPrompt(h.store.db, scope([wsId]), 'prompt', 'greeter');
    expect(got).toMatchObject({
      id: 'p-1',
      slug: 'greeter',
      published_version: 1,
      latest_version: 1,
      virtual_key: 'vk-main',
      provider: null,
      created_at: 2000,
    });
    expect(await getPromptVersion(h.store.db, scope(), 'p-1', 1)).toEqual({ version: 1, ...v1, created_at: 2000 });

    const v = await addPromptVersion(
      h.store.db,
      scope(),
      'p-1',
      { ...v1, template: 'Hi {{name}}', parameters: {}, model: null, description: null },
      { provider: '@main', virtual_key: null },
      3000,
    );
    expect(v).toBe(2);
    const after = await getPrompt(h.store.db, scope([wsId]), 'prompt', 'p-1');
    expect(after).toMatchObject({ published_version: 1, latest_version: 2, provider: '@main', virtual_key: null, updated_at: 3000 });
    expect(await getPromptVersion(h.store.db, scope(), 'p-1', 2)).toMatchObject({
      template: 'Hi {{name}}',
      parameters: {},
      model: null,
      description: null,
    });

    expect(await publishPromptVersion(h.store.db, scope(), 'p-1', 7, 4000)).toBe(false);
    expect(await publishPromptVersion(h.store.db, scope(), 'p-1', 2, 4000)).toBe(true);
    expect((await getPrompt(h.store.db, scope([wsId]), 'prompt', 'p-1'))!.published_version).toBe(2);

    await updatePrompt(h.store.db, scope(), 'p-1', { name: 'renamed' }, 5000);
    expect(await getPrompt(h.store.db, scope([wsId]), 'prompt', 'p-1')).toMatchObject({
      name: 'renamed',
      latest_version: 2,
      updated_at: 5000,
    });
    expect((await listPromptVersions(h.store.db, scope(), 'p-1')).map((x) => x.version)).toEqual([2, 1]);
  });

  it('gives concurrent version writes distinct numbers', async () => {
    await insertPrompt(h.store.db, scope(), record('p-2', 'busy'), v1);
    const numbers = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => addPromptVersion(h.store.db, scope(), 'p-2', { ...v1, template: `t${i}` }, {}, 3000 + i)),
    );
    expect([...numbers].sort()).toEqual([2, 3, 4, 5, 6]);
  });

  it('keeps slugs unique per workspace and kind, and scopes reads to workspaces and kind', async () => {
    const err = await insertPrompt(h.store.db, scope(), record('p-3', 'greeter'), v1).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    await insertPrompt(h.store.db, scope(), record('pp-1', 'greeter', 'partial'), {
      ...v1,
      template: 'Be kind.',
      parameters: {},
      model: null,
      metadata: {},
    });
    expect((await getPrompt(h.store.db, scope([wsId]), 'partial', 'greeter'))!.id).toBe('pp-1');
    expect(await getPrompt(h.store.db, scope(['other-ws']), 'prompt', 'greeter')).toBeUndefined();
    expect(await getPrompt(h.store.db, scope([wsId]), 'prompt', 'pp-1')).toBeUndefined();
  });

  it('lists a page with the published version and the total, and loads everything for the snapshot', async () => {
    await insertPrompt(h.store.db, scope(), record('p-4', 'late', 'prompt', 9000), v1);
    const page = await listPrompts(h.store.db, scope(), { kind: 'prompt', limit: 2, offset: 0 });
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => r.id)).toEqual(['p-4', 'p-1']);
    expect(page.rows[0]!.published).toMatchObject({
      version: 1,
      template: 'Hello {{name}}',
      parameters: { temperature: 0.5, max_completion_tokens: 10 },
    });
    const second = await listPrompts(h.store.db, scope(), { kind: 'prompt', limit: 2, offset: 2 });
    expect(second.rows).toHaveLength(1);
    const all = await loadAllPrompts(h.store);
    const p1 = all.find((p) => p.id === 'p-1')!;
    expect(p1.versions.map((v) => v.version)).toEqual([1, 2]);
    expect(all.find((p) => p.id === 'pp-1')!.kind).toBe('partial');
  });

  it('sees and changes nothing outside the tenant scope, and loads one workspace for the snapshot', async () => {
    const foreign = scope([wsId], 'other-org');
    expect(await getPrompt(h.store.db, foreign, 'prompt', 'p-1')).toBeUndefined();
    expect(await getPromptVersion(h.store.db, scope(['other-ws']), 'p-1', 1)).toBeUndefined();
    expect(await listPromptVersions(h.store.db, foreign, 'p-1')).toEqual([]);
    expect((await listPrompts(h.store.db, foreign, { kind: 'prompt', limit: 10, offset: 0 })).total).toBe(0);
    expect(await publishPromptVersion(h.store.db, foreign, 'p-1', 1, 6000)).toBe(false);
    await updatePrompt(h.store.db, foreign, 'p-1', { name: 'stolen' }, 6000);
    await deletePrompt(h.store.db, scope(['other-ws']), 'p-1');
    await expect(addPromptVersion(h.store.db, foreign, 'p-1', v1, {}, 6000)).rejects.toThrow();
    await expect(insertPrompt(h.store.db, foreign, record('p-x', 'x'), v1)).rejects.toThrow(/outside the tenant scope/);
    expect(await getPrompt(h.store.db, scope(), 'prompt', 'p-1')).toMatchObject({
      name: 'renamed',
      published_version: 2,
      latest_version: 2,
    });
    expect((await listPromptVersions(h.store.db, scope(), 'p-1')).map((x) => x.version)).toEqual([2, 1]);
    expect((await loadAllPrompts(h.store, [wsId])).length).toBe((await loadAllPrompts(h.store)).length);
    expect(await loadAllPrompts(h.store, ['other-ws'])).toEqual([]);
  });

  it('deletes a prompt with its versions and frees the slug', async () => {
    await deletePrompt(h.store.db, scope(), 'p-1');
    expect(await getPrompt(h.store.db, scope([wsId]), 'prompt', 'p-1')).toBeUndefined();
    expect(await listPromptVersions(h.store.db, scope(), 'p-1')).toEqual([]);
    await insertPrompt(h.store.db, scope(), record('p-5', 'greeter'), v1);
    expect((await getPrompt(h.store.db, scope([wsId]), 'prompt', 'greeter'))!.id).toBe('p-5');
  });
});
