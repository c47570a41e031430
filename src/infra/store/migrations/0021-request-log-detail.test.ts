import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { down, up } from './0021-request-log-detail.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0021-request-log-detail ($name)', (kind) => {
  it('keeps existing request-log rows (detail columns null) and takes attempts, ttfb and bodies on new ones; down and up again', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const tenant = await ensureDefaultTenant(handle.store, 1);
    await down(db as unknown as Kysely<unknown>);
    const row = (id: string) => ({
      id,
      organisation_id: tenant.organisation.id,
      workspace_id: tenant.workspace.id,
      api_key_id: 'k',
      user_id: null,
      trace_id: 't',
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
      prompt_tokens: 1,
      completion_tokens: 1,
      total_tokens: 2,
      cost: 0,
      latency_ms: 5,
      metadata: '{}',
      error: null,
      hook_results: null,
      created_at: 1,
    });
    await (db as unknown as Kysely<Record<string, Record<string, unknown>>>).insertInto('request_logs').values(row('old')).execute();
    await up(db as unknown as Kysely<unknown>);
    await db
      .insertInto('request_logs')
      .values({ ...row('new'), attempts: '[]', ttfb_ms: 3, request_body: '{"a":1}', response_body: '{"b":2}' })
      .execute();
    const rows = await db
      .selectFrom('request_logs')
      .select(['id', 'attempts', 'ttfb_ms', 'request_body', 'response_body'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 'new', attempts: '[]', ttfb_ms: 3, request_body: '{"a":1}', response_body: '{"b":2}' },
      { id: 'old', attempts: null, ttfb_ms: null, request_body: null, response_body: null },
    ]);
  });
});
