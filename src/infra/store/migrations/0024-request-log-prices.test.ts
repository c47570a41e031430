import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { down, up } from './0024-request-log-prices.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0024-request-log-prices ($name)', (kind) => {
  it('keeps existing request-log rows (unit_prices null, token details 0) and stores them on new ones', async () => {
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
      model: 'gpt-4o',
      status: 200,
      stream: 0,
      cache_status: null,
      config_id: null,
      prompt_id: null,
      target_path: null,
      retry_count: 0,
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      cost: 0.25,
      latency_ms: 5,
      metadata: '{}',
      error: null,
      hook_results: null,
      created_at: 1,
    });
    await (db as unknown as Kysely<Record<string, Record<string, unknown>>>).insertInto('request_logs').values(row('old')).execute();
    await up(db as unknown as Kysely<unknown>);
    const prices = JSON.stringify({ input_mtok: 2.5, output_mtok: 10, multiplier: 1, source: 'catalogue' });
    await db
      .insertInto('request_logs')
      .values({ ...row('new'), unit_prices: prices, cached_tokens: 4, cache_write_tokens: 1, reasoning_tokens: 2 })
      .execute();
    const rows = await db
      .selectFrom('request_logs')
      .select(['id', 'cost', 'unit_prices', 'cached_tokens', 'cache_write_tokens', 'reasoning_tokens'])
      .orderBy('id')
      .execute();
    expect(
      rows.map((r) => ({
        ...r,
        cost: Number(r.cost),
        cached_tokens: Number(r.cached_tokens),
        cache_write_tokens: Number(r.cache_write_tokens),
        reasoning_tokens: Number(r.reasoning_tokens),
      })),
    ).toEqual([
      { id: 'new', cost: 0.25, unit_prices: prices, cached_tokens: 4, cache_write_tokens: 1, reasoning_tokens: 2 },
      { id: 'old', cost: 0.25, unit_prices: null, cached_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
    ]);
  });
});
