import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../helpers/stores.js';
import { ensureDefaultTenant, listWorkspaces } from '../../src/infra/store/repos/organisations.js';
import {
  claimScheduledRotation,
  getApiKey,
  insertApiKey,
  listActiveApiKeys,
  listApiKeys,
  listDueRotations,
  rotateApiKey,
  takePendingKey,
  touchApiKeys,
  updateApiKey,
  type ApiKeyRecord,
} from '../../src/infra/store/repos/api-keys.js';
import {
  archiveConfig,
  getConfig,
  insertConfig,
  listConfigs,
  listConfigVersions,
  updateConfig,
} from '../../src/infra/store/repos/configs.js';
import { getVirtualKey, insertVirtualKey, listVirtualKeys, updateVirtualKey } from '../../src/infra/store/repos/virtual-keys.js';
import {
  deleteRequestLogsBefore,
  getRequestLog,
  insertRequestLogs,
  listRequestLogs,
  readRequestLogPage,
  type LogCursor,
  type LogViewer,
} from '../../src/infra/store/repos/request-logs.js';

/** A reader of the request log who sees every row and field. */
const viewer: LogViewer = { userId: null, visibility: { rows: 'all', metadata: true } };
import { bumpRuntimeVersion, isUniqueViolation, readRuntimeVersion } from '../../src/infra/store/store.js';
import { uuid } from '../../src/foundation/lib/ids.js';

describe.each(STORE_KINDS)('store conformance: $name', (kind) => {
  let h: StoreHandle;
  let org: string;
  let ws: string;
  beforeEach(async () => {
    h = await kind.open();
    const t = await ensureDefaultTenant(h.store, 1000);
    org = t.organisation.id;
    ws = t.workspace.id;
  });
  afterEach(async () => {
    await h.dispose();
  });

  it('bootstraps the default tenant once', async () => {
    const again = await ensureDefaultTenant(h.store, 2000);
    expect(again.created).toBe(false);
    expect(again.workspace.id).toBe(ws);
    expect((await listWorkspaces(h.store)).map((w) => w.slug)).toEqual(['default']);
  });

  const key = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
    id: uuid(),
    organisation_id: org,
    workspace_id: ws,
    name: 'k',
    type: 'workspace-service',
    key_hash: uuid().replace(/-/g, ''),
    key_hint: 'ab',
    scopes: ['a.b'],
    status: 'active',
    expires_at: 5_000_000_000_000,
    rotation_policy: { rotation_period: 'weekly' },
    metadata: { team: 'x' },
    previous_key_hash: null,
    key_transition_expires_at: null,
    creation_mode: 'api',
    last_used_at: null,
    next_rotation_at: null,
    pending_key_ciphertext: null,
    pending_key_revealed_at: null,
    created_at: 10,
    updated_at: 10,
    ...over,
  });

  const scope = () => ({ organisationId: org, workspaceIds: [ws], organisationWide: true });

  it('round-trips API keys with their JSON fields and large times', async () => {
    const k = key();
    await insertApiKey(h.store.db, scope(), k);
    expect(await getApiKey(h.store.db, scope(), k.id)).toEqual(k);
    await updateApiKey(h.store.db, scope(), k.id, { name: 'renamed', scopes: [], expires_at: null }, 20);
    expect(await getApiKey(h.store.db, scope(), k.id)).toMatchObject({ name: 'renamed', scopes: [], expires_at: null, updated_at: 20 });
    await insertApiKey(h.store.db, scope(), key({ created_at: 30 }));
    const page = await listApiKeys(h.store.db, scope(), { limit: 1, offset: 0 });
    expect(page.total).toBe(2);
    expect(page.rows).toHaveLength(1);
    expect(page.rows[0]!.created_at).toBe(30);
    await updateApiKey(h.store.db, scope(), k.id, { status: 'revoked' }, 40);
    expect((await listActiveApiKeys(h.store)).map((r) => r.id)).not.toContain(k.id);
  });

  it('reads and writes API keys only within the tenant scope', async () => {
    const k = key();
    await insertApiKey(h.store.db, scope(), k);
    const other = { organisationId: org, workspaceIds: [uuid()], organisationWide: false };
    expect(await getApiKey(h.store.db, other, k.id)).toBeUndefined();
    expect((await listApiKeys(h.store.db, other, { limit: 10, offset: 0 })).total).toBe(0);
    await updateApiKey(h.store.db, other, k.id, { name: 'hijacked' }, 50);
    expect((await getApiKey(h.store.db, scope(), k.id))!.name).toBe('k');
    expect(await getApiKey(h.store.db, { ...scope(), organisationId: uuid() }, k.id)).toBeUndefined();
    await expect(insertApiKey(h.store.db, other, key())).rejects.toThrow(/outside the tenant scope/);
  });

  it('refuses a duplicate key hash as a unique violation', async () => {
    const k = key();
    await insertApiKey(h.store.db, scope(), k);
    const err = await insertApiKey(h.store.db, scope(), key({ key_hash: k.key_hash })).catch((e) => e);
    expect(isUniqueViolation(err)).toBe(true);
  });

  it('rotates a key only when no transition is open (at most two live values)', async () => {
    const k = key();
    await insertApiKey(h.store.db, scope(), k);
    const rotation = (hash: string, ends: number) => ({ keyHash: hash, keyHint: 'n', transitionEndsAt: ends, pendingCiphertext: null });
    expect(await rotateApiKey(h.store.db, scope(), k.id, rotation('h1', 5_000), 1_000)).toBe(true);
    expect(await getApiKey(h.store.db, scope(), k.id)).toMatchObject({
      key_hash: 'h1',
      previous_key_hash: k.key_hash,
      key_transition_expires_at: 5_000,
      updated_at: 1_000,
    });
    expect(await rotateApiKey(h.store.db, scope(), k.id, rotation('h2', 9_000), 4_999)).toBe(false);
    expect(
      await rotateApiKey(h.store.db, { ...scope(), workspaceIds: [uuid()], organisationWide: false }, k.id, rotation('h2', 9_000), 5_000),
    ).toBe(false);
    expect(await rotateApiKey(h.store.db, scope(), k.id, rotation('h2', 9_000), 5_000)).toBe(true);
    expect(await getApiKey(h.store.db, scope(), k.id)).toMatchObject({ key_hash: 'h2', previous_key_hash: 'h1' });
  });

  it('a scheduled rotation is claimed exactly once, even by concurrent transactions', async () => {
    const due = 2_000;
    const k = key({ next_rotation_at: due });
    await insertApiKey(h.store.db, scope(), k);
    await insertApiKey(h.store.db, scope(), key({ next_rotation_at: 10_000 }));
    await insertApiKey(h.store.db, scope(), key({ next_rotation_at: 1_000, expires_at: 2_500 }));
    expect((await listDueRotations(h.store.db, 3_000, 10)).map((r) => r.id)).toEqual([k.id]);
    const claim = (hash: string) =>
      h.store.db
        .transaction()
        .execute((trx) =>
          claimScheduledRotation(
            trx,
            k.id,
            due,
            { keyHash: hash, keyHint: 'n', transitionEndsAt: 9_000, pendingCiphertext: `sealed-${hash}`, nextRotationAt: 50_000 },
            3_000,
          ),
        );
    const results = await Promise.all([claim('c1'), claim('c2'), claim('c3')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = (await getApiKey(h.store.db, scope(), k.id))!;
    expect(after).toMatchObject({ next_rotation_at: 50_000, previous_key_hash: k.key_hash, key_transition_expires_at: 9_000 });
    expect(after.pending_key_ciphertext).toBe(`sealed-${after.key_hash}`);
    expect(await listDueRotations(h.store.db, 3_000, 10)).toEqual([]);
  });

  it('takes a pending value once; records last use without moving it back', async () => {
    const k = key({ pending_key_ciphertext: 'sealed' });
    await insertApiKey(h.store.db, scope(), k);
    const plain = key();
    await insertApiKey(h.store.db, scope(), plain);
    expect(await takePendingKey(h.store.db, scope(), plain.id, 1)).toEqual({ none: true });
    expect(await takePendingKey(h.store.db, { ...scope(), workspaceIds: [uuid()], organisationWide: false }, k.id, 1)).toEqual({
      none: true,
    });
    expect(await takePendingKey(h.store.db, scope(), k.id, 7)).toEqual({ ciphertext: 'sealed' });
    expect(await takePendingKey(h.store.db, scope(), k.id, 8)).toEqual({ revealedAt: 7 });
    await touchApiKeys(h.store.db, [k.id, plain.id], 100);
    await touchApiKeys(h.store.db, [k.id], 50);
    expect((await getApiKey(h.store.db, scope(), k.id))!.last_used_at).toBe(100);
    expect((await getApiKey(h.store.db, scope(), plain.id))!.last_used_at).toBe(100);
  });

  it('versions configs and finds them by id or slug within workspaces', async () => {
    const id = uuid();
    await insertConfig(h.store.db, scope(), {
      id,
      organisation_id: org,
      workspace_id: ws,
      name: 'c',
      slug: 'c-slug',
      status: 'active',
      version: 1,
      config: { retry: { attempts: 1 } },
      created_at: 1,
      updated_at: 1,
    });
    expect(await updateConfig(h.store.db, scope(), id, { config: { retry: { attempts: 2 } } }, 2)).toBe(2);
    expect(await updateConfig(h.store.db, scope(), id, { name: 'renamed' }, 3)).toBe(2);
    const bySlug = await getConfig(h.store.db, scope(), 'c-slug');
    expect(bySlug).toMatchObject({ id, name: 'renamed', version: 2, config: { retry: { attempts: 2 } } });
    expect(await getConfig(h.store.db, { organisationId: org, workspaceIds: [uuid()], organisationWide: false }, id)).toBeUndefined();
    expect((await listConfigVersions(h.store.db, scope(), id)).map((v) => v.version)).toEqual([2, 1]);
    const dup = await insertConfig(h.store.db, scope(), {
      id: uuid(),
      organisation_id: org,
      workspace_id: ws,
      name: 'd',
      slug: 'c-slug',
      status: 'active',
      version: 1,
      config: {},
      created_at: 1,
      updated_at: 1,
    }).catch((e) => e);
    expect(isUniqueViolation(dup)).toBe(true);
    expect((await listConfigs(h.store.db, scope(), { limit: 10, offset: 0 })).total).toBe(1);
    await archiveConfig(h.store.db, scope(), id, 4);
    expect((await listConfigs(h.store.db, scope(), { limit: 10, offset: 0 })).total).toBe(0);
  });

  it('stores virtual keys and request logs', async () => {
    const id = uuid();
    await insertVirtualKey(h.store.db, scope(), {
      id,
      workspace_id: ws,
      name: 'v',
      slug: 'v1',
      provider: 'openai',
      secret: 's',
      config: { custom_host: 'http://x' },
      status: 'active',
      created_at: 1,
      updated_at: 1,
    });
    await updateVirtualKey(h.store.db, scope(), id, { secret: 's2' }, 2);
    expect(await getVirtualKey(h.store.db, scope(), 'v1')).toMatchObject({ id, secret: 's2', config: { custom_host: 'http://x' } });
    expect((await listVirtualKeys(h.store.db, scope(), { limit: 10, offset: 0 })).total).toBe(1);
    const row = {
      id: uuid(),
      organisation_id: org,
      workspace_id: ws,
      api_key_id: null,
      user_id: null,
      trace_id: 't1',
      endpoint: 'chat',
      provider: 'openai',
      model: 'm',
      status: 200,
      stream: 1,
      cache_status: 'MISS',
      config_id: null,
      prompt_id: null,
      target_path: 'config',
      retry_count: 0,
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
      cost: 0.5,
      latency_ms: 12,
      metadata: '{}',
      error: null,
      hook_results: null,
      created_at: 1_800_000_000_000,
      unit_prices: '{"input_mtok":2.5,"output_mtok":10,"multiplier":1,"source":"catalogue"}',
      cached_tokens: 1,
      cache_write_tokens: 0,
      reasoning_tokens: 1,
      attempts: '[{"target_path":"config","provider":"openai","status":200,"latency_ms":11}]',
      ttfb_ms: 7,
      request_body: null,
      response_body: null,
    };
    await insertRequestLogs(h.store, [row, { ...row, id: uuid(), trace_id: 't2' }]);
    const logs = await listRequestLogs(h.store.db, scope(), viewer, { traceId: 't1' }, { limit: 10, offset: 0 });
    expect(logs.total).toBe(1);
    // Written with their rollups in the same transaction (`rolled_up` 1: the backfill skips them).
    expect(logs.rows[0]).toEqual({ ...row, rolled_up: 1 });
    // A batch longer than one multi-row statement (SQLite writes 32 rows per INSERT, then single rows): every row lands whole.
    const batch = Array.from({ length: 75 }, (_, i) => ({
      ...row,
      id: uuid(),
      trace_id: 'batch',
      model: `m${i}`,
      latency_ms: i,
      created_at: row.created_at + i,
    }));
    await insertRequestLogs(h.store, batch);
    const stored = await listRequestLogs(h.store.db, scope(), viewer, { traceId: 'batch' }, { limit: 100, offset: 0 });
    expect(stored.total).toBe(75);
    expect([...stored.rows].sort((a, b) => a.latency_ms - b.latency_ms)).toEqual(batch.map((r) => ({ ...r, rolled_up: 1 })));
    // Keyset pages walk the same rows newest first, none twice.
    const walked: string[] = [];
    let cursor: LogCursor | null = null;
    for (;;) {
      const page = await readRequestLogPage(h.store.db, scope(), viewer, { traceId: 'batch' }, cursor, 20);
      walked.push(...page.map((r) => r.model!));
      if (page.length < 20) break;
      cursor = { createdAt: page[page.length - 1]!.created_at, id: page[page.length - 1]!.id };
    }
    expect(walked).toEqual(batch.map((r) => r.model).reverse());
    // Retention deletes in bounded statements: the oldest first, at most `limit` each.
    expect(await deleteRequestLogsBefore(h.store, row.created_at + 30, 25)).toBe(25);
    expect(await deleteRequestLogsBefore(h.store, row.created_at + 30, 25)).toBe(7);
    expect((await listRequestLogs(h.store.db, scope(), viewer, { traceId: 'batch' }, { limit: 100, offset: 0 })).total).toBe(45);
  });

  it('request logs: reads are limited to the tenant scope and to what the viewer may see, on list and by id', async () => {
    const base = {
      organisation_id: org,
      workspace_id: ws,
      api_key_id: null,
      trace_id: 'vis',
      endpoint: 'chat',
      provider: 'openai',
      model: 'm',
      status: 200,
      stream: 0,
      cache_status: null,
      config_id: null,
      prompt_id: null,
      target_path: null,
      retry_count: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost: 0,
      latency_ms: 1,
      metadata: '{"team":"a"}',
      error: null,
      hook_results: null,
      created_at: 1_800_000_000_000,
      unit_prices: null,
      cached_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    };
    const mine = { ...base, id: uuid(), user_id: 'u1' };
    const theirs = { ...base, id: uuid(), user_id: 'u2', created_at: base.created_at + 1 };
    const service = { ...base, id: uuid(), user_id: null, created_at: base.created_at + 2 };
    await insertRequestLogs(h.store, [mine, theirs, service]);
    const page = { limit: 10, offset: 0 };
    const ids = async (v: LogViewer, f = {}) =>
      (await listRequestLogs(h.store.db, scope(), v, { traceId: 'vis', ...f }, page)).rows.map((r) => r.id);
    expect(await ids(viewer)).toEqual([service.id, theirs.id, mine.id]);
    const own = { userId: 'u1', visibility: { rows: 'own' as const, metadata: true } };
    expect(await ids(own)).toEqual([mine.id]);
    expect(await ids({ userId: null, visibility: { rows: 'own', metadata: true } })).toEqual([]);
    expect(await ids(viewer, { userId: 'u2' })).toEqual([theirs.id]);
    expect(await getRequestLog(h.store.db, scope(), own, theirs.id)).toBeUndefined();
    expect((await getRequestLog(h.store.db, scope(), own, mine.id))?.metadata).toBe('{"team":"a"}');
    expect(
      (await getRequestLog(h.store.db, scope(), { userId: null, visibility: { rows: 'all', metadata: false } }, mine.id))?.metadata,
    ).toBe('null');
    const elsewhere = { organisationId: org, workspaceIds: ['another-workspace'], organisationWide: false };
    expect(await getRequestLog(h.store.db, elsewhere, viewer, mine.id)).toBeUndefined();
    expect((await listRequestLogs(h.store.db, elsewhere, viewer, { traceId: 'vis' }, page)).total).toBe(0);
    expect(
      (
        await listRequestLogs(
          h.store.db,
          scope(),
          viewer,
          { traceId: 'vis', startTime: base.created_at + 1, endTime: base.created_at + 2 },
          page,
        )
      ).rows.map((r) => r.id),
    ).toEqual([theirs.id]);
  });

  it('bumps the runtime version', async () => {
    const v = await readRuntimeVersion(h.store);
    await bumpRuntimeVersion(h.store);
    expect(await readRuntimeVersion(h.store)).toBe(v + 1);
  });
});
