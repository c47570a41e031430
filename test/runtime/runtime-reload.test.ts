import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../helpers/stores.js';
import { Runtime, type RuntimeSection } from '../../src/runtime/runtime.js';
import { API_KEYS_SECTION, CONFIGS_SECTION, VIRTUAL_KEYS_SECTION, WORKSPACES_SECTION } from '../../src/runtime/core-sections.js';
import { MemoryPubSub } from '../../src/infra/state/pubsub.js';
import { createLogger } from '../../src/infra/observability/logger.js';
import { ensureDefaultTenant } from '../../src/infra/store/repos/organisations.js';
import { insertConfig, updateConfig } from '../../src/infra/store/repos/configs.js';
import { insertVirtualKey } from '../../src/infra/store/repos/virtual-keys.js';
import { readRuntimeVersion, recordRuntimeChange, type Store } from '../../src/infra/store/store.js';
import { uuid } from '../../src/foundation/lib/ids.js';

const logger = createLogger('silent');
const CONFIG = { provider: 'openai', api_key: 'sk-test' };

/** A capability-like section whose loaders are spies; its value counts whole loads and lists the workspaces reloaded since. */
function spySection(name: string, withWorkspaces = true) {
  let n = 0;
  const load = vi.fn(async () => ({ whole: ++n, workspaces: [] as string[] }));
  const loadWorkspaces = vi.fn(async (_store: Store, previous: { whole: number; workspaces: string[] }, ids: readonly string[]) => ({
    ...previous,
    workspaces: [...new Set([...previous.workspaces, ...ids])],
  }));
  const section: RuntimeSection<{ whole: number; workspaces: string[] }> = withWorkspaces ? { name, load, loadWorkspaces } : { name, load };
  return { section: section as RuntimeSection, load, loadWorkspaces };
}

async function addWorkspace(store: Store, organisationId: string, slug: string): Promise<string> {
  const id = uuid();
  await store.db
    .insertInto('workspaces')
    .values({ id, organisation_id: organisationId, name: slug, slug, status: 'active', settings: '{}', created_at: 1, updated_at: 1 })
    .execute();
  return id;
}

async function addConfig(store: Store, organisationId: string, workspaceId: string, slug: string): Promise<string> {
  const id = uuid();
  await insertConfig(
    store.db,
    { organisationId, workspaceIds: [workspaceId], organisationWide: false },
    {
      id,
      organisation_id: organisationId,
      workspace_id: workspaceId,
      name: slug,
      slug,
      status: 'active',
      version: 1,
      config: CONFIG,
      created_at: 1,
      updated_at: 1,
    },
  );
  return id;
}

describe.each(STORE_KINDS)('runtime reload on $name', (kind) => {
  let h: StoreHandle;
  let tenant: { organisationId: string; workspaceId: string };
  const runtimes: Runtime[] = [];

  const startRuntime = async (sections: RuntimeSection[] = [], pollMs = 60_000) => {
    const runtime = new Runtime(h.store, new MemoryPubSub(), logger, tenant, pollMs);
    for (const s of sections) runtime.register(s);
    await runtime.start();
    runtimes.push(runtime);
    return runtime;
  };

  beforeEach(async () => {
    h = await kind.open();
    const t = await ensureDefaultTenant(h.store, 1);
    tenant = { organisationId: t.organisation.id, workspaceId: t.workspace.id };
  });
  afterEach(async () => {
    for (const r of runtimes.splice(0)) r.stop();
    await h.dispose();
  });

  it('a change of one section in one workspace reloads only that workspace of that section', async () => {
    const a = spySection('a');
    const b = spySection('b');
    const runtime = await startRuntime([a.section, b.section]);
    const before = runtime.current;
    a.load.mockClear();
    b.load.mockClear();
    await runtime.changed([{ section: 'a', workspaceId: 'w1' }]);
    expect(a.loadWorkspaces).toHaveBeenCalledTimes(1);
    expect(a.loadWorkspaces.mock.calls[0][2]).toEqual(['w1']);
    expect(a.load).not.toHaveBeenCalled();
    expect(b.load).not.toHaveBeenCalled();
    const after = runtime.current;
    expect(after).not.toBe(before);
    expect(after.version).toBe(before.version + 1);
    expect(after.sections.get('a')).toEqual({ whole: 1, workspaces: ['w1'] });
    // Untouched sections are the very same values: nothing of them was reloaded.
    expect(after.sections.get('b')).toBe(before.sections.get('b'));
    expect(after.apiKeysByHash).toBe(before.apiKeysByHash);
    expect(after.configs).toBe(before.configs);
    expect(after.virtualKeys).toBe(before.virtualKeys);
    expect(after.workspacesById).toBe(before.workspacesById);
  });

  it('a section without a per-workspace loader is reloaded whole; no changes at all reload everything', async () => {
    const a = spySection('a', false);
    const b = spySection('b');
    const runtime = await startRuntime([a.section, b.section]);
    a.load.mockClear();
    b.load.mockClear();
    await runtime.changed([{ section: 'a', workspaceId: 'w1' }]);
    expect(a.load).toHaveBeenCalledTimes(1);
    expect(b.load).not.toHaveBeenCalled();
    await runtime.changed();
    expect(a.load).toHaveBeenCalledTimes(2);
    expect(b.load).toHaveBeenCalledTimes(1);
    expect(b.loadWorkspaces).not.toHaveBeenCalled();
  });

  it('reloads a core section per workspace, keeping the other workspaces and sections', async () => {
    const other = await addWorkspace(h.store, tenant.organisationId, 'other');
    const kept = await addConfig(h.store, tenant.organisationId, other, 'kept');
    const runtime = await startRuntime();
    expect(runtime.current.configs.get(`${other}:kept`)?.id).toBe(kept);
    const before = runtime.current;
    const id = await addConfig(h.store, tenant.organisationId, tenant.workspaceId, 'fresh');
    await runtime.changed([{ section: CONFIGS_SECTION, workspaceId: tenant.workspaceId }]);
    const after = runtime.current;
    expect(after.configs.get(`${tenant.workspaceId}:${id}`)?.id).toBe(id);
    expect(after.configs.get(`${tenant.workspaceId}:fresh`)?.id).toBe(id);
    expect(after.configs.get(`${other}:kept`)).toBe(before.configs.get(`${other}:kept`));
    expect(after.virtualKeys).toBe(before.virtualKeys);
    // Archiving removes both of its keys from the snapshot.
    await h.store.db.updateTable('configs').set({ status: 'archived' }).where('id', '=', id).execute();
    await runtime.changed([{ section: CONFIGS_SECTION, workspaceId: tenant.workspaceId }]);
    expect(runtime.current.configs.has(`${tenant.workspaceId}:${id}`)).toBe(false);
    expect(runtime.current.configs.has(`${tenant.workspaceId}:fresh`)).toBe(false);
    expect(runtime.current.configs.get(`${other}:kept`)?.id).toBe(kept);
  });

  it('compiles a stored config once per version, even on a full reload', async () => {
    const id = await addConfig(h.store, tenant.organisationId, tenant.workspaceId, 'once');
    const runtime = await startRuntime();
    const first = runtime.current.configs.get(`${tenant.workspaceId}:${id}`);
    await runtime.changed();
    expect(runtime.current.configs.get(`${tenant.workspaceId}:${id}`)).toBe(first);
    await updateConfig(
      h.store.db,
      { organisationId: tenant.organisationId, workspaceIds: [tenant.workspaceId], organisationWide: false },
      id,
      { config: { ...CONFIG, api_key: 'sk-new' } },
      2,
    );
    await runtime.changed([{ section: CONFIGS_SECTION, workspaceId: tenant.workspaceId }]);
    const second = runtime.current.configs.get(`${tenant.workspaceId}:${id}`);
    expect(second).not.toBe(first);
    expect((second?.source as { api_key?: string }).api_key).toBe('sk-new');
  });

  it('reloads the workspaces and virtual-keys sections of one workspace', async () => {
    const runtime = await startRuntime();
    const ws = await addWorkspace(h.store, tenant.organisationId, 'team');
    await insertVirtualKey(
      h.store.db,
      { organisationId: tenant.organisationId, workspaceIds: [ws], organisationWide: false },
      {
        id: uuid(),
        workspace_id: ws,
        name: 'vk',
        slug: 'vk',
        provider: 'openai',
        secret: 's',
        config: {},
        status: 'active',
        created_at: 1,
        updated_at: 1,
      },
    );
    await runtime.changed([
      { section: WORKSPACES_SECTION, workspaceId: ws },
      { section: VIRTUAL_KEYS_SECTION, workspaceId: ws },
    ]);
    expect(runtime.current.workspacesById.get(ws)?.slug).toBe('team');
    expect(runtime.current.workspacesBySlug.get(`${tenant.organisationId}:team`)?.id).toBe(ws);
    expect(runtime.current.workspacesById.get(tenant.workspaceId)?.slug).toBe('default');
    expect(runtime.current.virtualKeys.get(`${ws}:vk`)?.secret).toBe('s');
  });

  it('loads many rows in pages and yields to the event loop while it does', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => ({
      id: `k${String(i).padStart(5, '0')}`,
      organisation_id: tenant.organisationId,
      workspace_id: tenant.workspaceId,
      name: 'k',
      type: 'workspace-service',
      key_hash: `h${i}`,
      key_hint: 'k',
      scopes: '[]',
      status: 'active',
      expires_at: null,
      rotation_policy: null,
      metadata: '{}',
      created_at: 1,
      updated_at: 1,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await h.store.db
        .insertInto('api_keys')
        .values(rows.slice(i, i + 200))
        .execute();
    const runtime = await startRuntime();
    expect(runtime.current.apiKeysByHash.size).toBe(1200);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    await runtime.changed([{ section: API_KEYS_SECTION, workspaceId: tenant.workspaceId }]);
    clearInterval(timer);
    expect(runtime.current.apiKeysByHash.size).toBe(1200);
    // Several pages and slices: timers ran between them.
    expect(ticks).toBeGreaterThan(0);
  });

  it('falls back to a full reload when the outbox no longer has the versions missed', async () => {
    const a = spySection('a');
    const b = spySection('b');
    const runtime = await startRuntime([a.section, b.section]);
    const v = runtime.current.version;
    // Another writer's changes, then their outbox rows pruned before this replica read them.
    await recordRuntimeChange(h.store.db, [{ section: 'a', workspaceId: 'w1' }]);
    await recordRuntimeChange(h.store.db, [{ section: 'a', workspaceId: 'w2' }]);
    await h.store.db
      .deleteFrom('runtime_changes')
      .where('version', '=', v + 1)
      .execute();
    b.load.mockClear();
    await runtime.committed([]);
    expect(b.load).toHaveBeenCalledTimes(1);
    expect(runtime.current.version).toBe(v + 2);
  });

  it('catches up with the outbox: a change recorded elsewhere reloads only what it named', async () => {
    const a = spySection('a');
    const b = spySection('b');
    const runtime = await startRuntime([a.section, b.section]);
    await recordRuntimeChange(h.store.db, [{ section: 'a', workspaceId: 'w1' }]);
    await recordRuntimeChange(h.store.db, [{ section: 'a', workspaceId: 'w2' }, { section: 'not-here' }]);
    b.load.mockClear();
    await runtime.committed([]);
    expect(a.loadWorkspaces.mock.calls.at(-1)?.[2]).toEqual(['w1', 'w2']);
    expect(b.load).not.toHaveBeenCalled();
    expect(runtime.current.version).toBe(await readRuntimeVersion(h.store));
  });

  it('keeps the last good snapshot when a section fails to load, and recovers later', async () => {
    const a = spySection('a');
    const runtime = await startRuntime([a.section]);
    const before = runtime.current;
    a.loadWorkspaces.mockRejectedValueOnce(new Error('broken row'));
    a.load.mockRejectedValueOnce(new Error('broken row'));
    await runtime.changed([{ section: 'a', workspaceId: 'w1' }]);
    expect(runtime.current).toBe(before);
    // The version was not taken: the next reload (poll, message, write) tries again.
    await runtime.committed([]);
    expect(runtime.current.version).toBe(before.version + 1);
    expect(runtime.current.sections.get('a')).toEqual({ whole: 1, workspaces: ['w1'] });
  });

  it('a reload that cannot read the store keeps the last good snapshot and never rejects', async () => {
    const own = await kind.open();
    const t = await ensureDefaultTenant(own.store, 1);
    const runtime = new Runtime(
      own.store,
      new MemoryPubSub(),
      logger,
      { organisationId: t.organisation.id, workspaceId: t.workspace.id },
      60_000,
    );
    await runtime.start();
    runtime.stop();
    const before = runtime.current;
    await own.dispose();
    await expect(runtime.committed([{ section: CONFIGS_SECTION }])).resolves.toBeUndefined();
    await expect(runtime.reload()).resolves.toBeUndefined();
    expect(runtime.current).toBe(before);
  });

  it('falls back to a full reload when a per-workspace reload fails', async () => {
    const a = spySection('a');
    const b = spySection('b');
    const runtime = await startRuntime([a.section, b.section]);
    a.loadWorkspaces.mockRejectedValueOnce(new Error('broken'));
    b.load.mockClear();
    await runtime.changed([{ section: 'a', workspaceId: 'w1' }]);
    expect(runtime.current.sections.get('a')).toEqual({ whole: 2, workspaces: [] });
    expect(b.load).toHaveBeenCalledTimes(1);
  });

  it('coalesces concurrent changes into few reloads that include every one of them', async () => {
    const a = spySection('a');
    const runtime = await startRuntime([a.section]);
    await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w) => runtime.changed([{ section: 'a', workspaceId: w }])));
    expect((runtime.current.sections.get('a') as { workspaces: string[] }).workspaces.sort()).toEqual(['w1', 'w2', 'w3', 'w4']);
    expect(a.loadWorkspaces.mock.calls.length).toBeLessThanOrEqual(4);
    expect(runtime.current.version).toBe(await readRuntimeVersion(h.store));
  });
});
