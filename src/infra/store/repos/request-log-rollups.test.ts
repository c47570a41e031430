import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { insertRequestLogs, type RequestLogRow } from './request-logs.js';
import { RETENTION_BUCKETS_PER_STATEMENT, backfillRollups, deleteRollupBucketsBefore, rollupRowsOf } from './request-log-rollups.js';
import { randomId } from '../../../foundation/lib/ids.js';
import { binOf } from '../../../foundation/lib/latency-histogram.js';
import type { Store } from '../store.js';

const T = Date.parse('2026-03-02T00:00:00.000Z');
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

function rowsOf(org: string, n: number, from: number, spread: number): RequestLogRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `log_ru_${randomId(10)}`,
    organisation_id: org,
    workspace_id: i % 3 ? 'ws-a' : 'ws-b',
    api_key_id: i % 4 ? `key-${i % 2}` : null,
    user_id: i % 5 ? null : 'user-1',
    trace_id: `t-${i}`,
    endpoint: 'chat',
    provider: i % 2 ? 'openai' : 'anthropic',
    model: i % 2 ? 'gpt-4o' : 'claude',
    status: i % 9 ? 200 : 500,
    stream: 0,
    cache_status: i % 4 ? 'MISS' : 'HIT',
    config_id: null,
    prompt_id: i % 7 ? null : 'prompt-1',
    target_path: null,
    retry_count: 0,
    prompt_tokens: i % 11,
    completion_tokens: i % 5,
    total_tokens: (i % 11) + (i % 5),
    cost: (i % 13) / 1000,
    latency_ms: (i * 7919) % 5000,
    metadata: '{}',
    error: null,
    hook_results: null,
    created_at: from + Math.floor((i * spread) / n),
  }));
}

/** Every rollup row of an organisation, numbers as numbers and histograms parsed, in a stable order. */
async function rollupsOf(store: Store, org: string) {
  const cube = await store.db.selectFrom('request_log_rollups').selectAll().where('organisation_id', '=', org).execute();
  const latency = await store.db.selectFrom('request_log_latency').selectAll().where('organisation_id', '=', org).execute();
  return normalise({ cube, latency });
}

function normalise(r: { cube: Array<Record<string, unknown>>; latency: Array<Record<string, unknown>> }) {
  const fix = (row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        k === 'hist'
          ? JSON.parse(String(v))
          : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) && k !== 'dim_value'
            ? Number(v)
            : k === 'cost'
              ? Math.round(Number(v) * 1e9) / 1e9
              : v,
      ]),
    );
  const order = (rows: Array<Record<string, unknown>>) => rows.map(fix).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return { cube: order(r.cube), latency: order(r.latency) };
}

for (const kind of STORE_KINDS) {
  describe(`request-log rollups (${kind.name})`, () => {
    let h: StoreHandle;
    beforeAll(async () => {
      h = await kind.open();
    });
    afterAll(async () => {
      await h?.dispose();
    });

    it('each batch adds its rows to the minute, hour and day rollups in its transaction; a refused batch adds nothing', async () => {
      const org = `org-${randomId(6)}`;
      const first = rowsOf(org, 300, T - 90 * MIN, 2 * HOUR);
      const second = rowsOf(org, 200, T - 30 * MIN, 3 * HOUR);
      await insertRequestLogs(h.store, first);
      await insertRequestLogs(h.store, second);
      const all = [...first, ...second];
      const stored = await rollupsOf(h.store, org);
      expect(stored).toEqual(normalise(rollupRowsOf(all) as never));
      for (const width of [MIN, HOUR, DAY]) {
        expect(stored.cube.filter((r) => r.bucket_ms === width).reduce((a, r) => a + Number(r.requests), 0)).toBe(500);
        expect(stored.latency.filter((r) => r.bucket_ms === width && r.dim === 'model').reduce((a, r) => a + Number(r.requests), 0)).toBe(
          500,
        );
      }
      const day = stored.cube.filter((r) => r.bucket_ms === DAY && r.bucket_start === T - DAY);
      expect(day.reduce((a, r) => a + Number(r.requests), 0)).toBe(all.filter((r) => r.created_at < T).length);
      const duplicate = [...rowsOf(org, 5, T, MIN), first[0]!];
      await expect(insertRequestLogs(h.store, duplicate)).rejects.toThrow();
      expect(await rollupsOf(h.store, org)).toEqual(stored);
      // A duplicate in the middle of a multi-row INSERT (rows 0-31 go in one statement on SQLite): the rows before it go too.
      const wide = rowsOf(org, 39, T, MIN);
      wide.splice(20, 0, second[7]!);
      await expect(insertRequestLogs(h.store, wide)).rejects.toThrow();
      expect(await rollupsOf(h.store, org)).toEqual(stored);
      const logged = await h.store.db
        .selectFrom('request_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organisation_id', '=', org)
        .where('rolled_up', '=', 1)
        .executeTakeFirst();
      expect(Number(logged?.n)).toBe(500);
    });

    it('the backfill adds rows without rollups once, in bounded batches, whatever was written meanwhile', async () => {
      const org = `org-${randomId(6)}`;
      const old = rowsOf(org, 45, T - 2 * DAY, 2 * DAY);
      for (const r of old)
        await h.store.db
          .insertInto('request_logs')
          .values({ ...r, rolled_up: 0 })
          .execute();
      const fresh = rowsOf(org, 20, T - DAY, HOUR);
      await insertRequestLogs(h.store, fresh);
      const counts: number[] = [];
      for (let n = -1; n !== 0;) counts.push((n = await backfillRollups(h.store, 10)));
      expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(45);
      expect(counts.slice(-1)).toEqual([0]);
      expect(await rollupsOf(h.store, org)).toEqual(normalise(rollupRowsOf([...old, ...fresh]) as never));
      expect(await backfillRollups(h.store, 10)).toBe(0);
      const later = rowsOf(org, 3, T + DAY, MIN);
      for (const r of later)
        await h.store.db
          .insertInto('request_logs')
          .values({ ...r, rolled_up: 0 })
          .execute();
      expect(await backfillRollups(h.store, 10)).toBe(3);
      expect(await rollupsOf(h.store, org)).toEqual(normalise(rollupRowsOf([...old, ...fresh, ...later]) as never));
    });

    it('retention deletes whole buckets that ended before the cut, in bounded statements, and keeps the bucket that straddles it', async () => {
      const org = `org-${randomId(6)}`;
      await insertRequestLogs(h.store, [
        ...rowsOf(org, 70, T - 3 * DAY, 70 * MIN),
        ...rowsOf(org, 10, T - HOUR, MIN),
        ...rowsOf(org, 10, T - 10 * MIN, 5 * MIN),
      ]);
      const cut = T - 30 * MIN;
      expect(await deleteRollupBucketsBefore(h.store, org, MIN, cut)).toBe(RETENTION_BUCKETS_PER_STATEMENT);
      expect(await deleteRollupBucketsBefore(h.store, org, MIN, cut)).toBe(71 - RETENTION_BUCKETS_PER_STATEMENT);
      for (const width of [HOUR, DAY]) while ((await deleteRollupBucketsBefore(h.store, org, width, cut)) > 0);
      const left = await rollupsOf(h.store, org);
      const buckets = (rows: Array<Record<string, unknown>>) =>
        [...new Set(rows.map((r) => `${r.bucket_ms}@${(Number(r.bucket_start) - T) / MIN}`))].sort();
      expect(buckets(left.cube)).toEqual(
        [`${DAY}@${-DAY / MIN}`, `${HOUR}@-60`, `${MIN}@-10`, `${MIN}@-6`, `${MIN}@-7`, `${MIN}@-8`, `${MIN}@-9`].sort(),
      );
      expect(buckets(left.latency)).toEqual(buckets(left.cube));
      expect(await deleteRollupBucketsBefore(h.store, org, MIN, cut)).toBe(0);
    });
  });
}

describe('rollupRowsOf', () => {
  /** Each row added on its own to its bucket of each width, its dimensions and each dimension's histogram: what the rollups must hold. */
  function rowByRow(rows: RequestLogRow[]) {
    const cube = new Map<
      string,
      Record<string, unknown> & {
        requests: number;
        errors: number;
        cache_hits: number;
        cost: number;
        total_tokens: number;
        prompt_tokens: number;
        completion_tokens: number;
        latency_sum: number;
        first_seen: number;
        last_seen: number;
      }
    >();
    const latency = new Map<
      string,
      { row: Record<string, unknown>; requests: number; latency_sum: number; bins: Record<string, number> }
    >();
    const dims = ['all', 'endpoint', 'provider', 'model', 'status', 'api_key_id', 'config_id', 'prompt_id'] as const;
    for (const r of rows) {
      const bin = r.latency_ms >= 1 ? binOf(r.latency_ms) : 0;
      for (const width of [MIN, HOUR, DAY]) {
        const bucket_start = r.created_at - (r.created_at % width);
        const d = {
          organisation_id: r.organisation_id,
          bucket_ms: width,
          bucket_start,
          workspace_id: r.workspace_id,
          api_key_id: r.api_key_id ?? '',
          user_id: r.user_id ?? '',
          endpoint: r.endpoint,
          provider: r.provider ?? '',
          model: r.model ?? '',
          status: r.status,
          cache_status: r.cache_status ?? '',
          config_id: r.config_id ?? '',
          prompt_id: r.prompt_id ?? '',
        };
        const key = JSON.stringify(d);
        const c = cube.get(key) ?? {
          ...d,
          requests: 0,
          errors: 0,
          cache_hits: 0,
          cost: 0,
          total_tokens: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          latency_sum: 0,
          first_seen: Infinity,
          last_seen: -Infinity,
        };
        c.requests++;
        c.errors += r.status >= 400 ? 1 : 0;
        c.cache_hits += r.cache_status === 'HIT' ? 1 : 0;
        c.cost += r.cost;
        c.total_tokens += r.total_tokens;
        c.prompt_tokens += r.prompt_tokens;
        c.completion_tokens += r.completion_tokens;
        c.latency_sum += r.latency_ms;
        c.first_seen = Math.min(c.first_seen, r.created_at);
        c.last_seen = Math.max(c.last_seen, r.created_at);
        cube.set(key, c);
        for (const dim of dims) {
          const value = dim === 'all' ? '' : String(d[dim]);
          const lkey = JSON.stringify([r.organisation_id, width, dim, bucket_start, r.workspace_id, value]);
          const l = latency.get(lkey) ?? {
            row: {
              organisation_id: r.organisation_id,
              bucket_ms: width,
              dim,
              bucket_start,
              workspace_id: r.workspace_id,
              dim_value: value,
            },
            requests: 0,
            latency_sum: 0,
            bins: {},
          };
          l.requests++;
          l.latency_sum += r.latency_ms;
          l.bins[bin] = (l.bins[bin] ?? 0) + 1;
          latency.set(lkey, l);
        }
      }
    }
    return normalise({
      cube: [...cube.values()],
      latency: [...latency.values()].map((l) => ({
        ...l.row,
        requests: l.requests,
        latency_sum: l.latency_sum,
        hist: JSON.stringify(l.bins),
      })),
    });
  }

  it('adds up every row into the cube and histograms of each width, as row-by-row addition does, in key order', () => {
    // A batch of the log: many rows alike within a minute (one key, one model), and rows of every kind.
    const alike = rowsOf('org-a', 300, T - 5 * MIN, 10 * MIN).map((r) => ({
      ...r,
      workspace_id: 'ws-a',
      api_key_id: 'key-0',
      user_id: null,
      provider: 'openai',
      model: 'gpt-4o',
      cache_status: 'MISS',
      prompt_id: null,
    }));
    const rows = [...alike, ...rowsOf('org-a', 400, T - 90 * MIN, 5 * HOUR), ...rowsOf('org-b', 50, T - DAY, 2 * DAY)];
    const rollups = rollupRowsOf(rows);
    expect(normalise(rollups as never)).toEqual(rowByRow(rows));
    const keys = rollups.cube.map((c) => [c.organisation_id, c.bucket_ms, c.bucket_start, c.workspace_id].join('\u0001'));
    expect(keys).toEqual([...keys].sort());
  });
});
