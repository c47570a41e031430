import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtRequestLogThread } from '../../../test/helpers/processes.js';
import { openStore, type Store } from './store.js';
import { deleteRequestLogsBefore, insertRequestLogs, type RequestLogRow } from './repos/request-logs.js';
import { backfillRollups, deleteRollupBucketsBefore } from './repos/request-log-rollups.js';
import { isStoreUnavailable } from './store-errors.js';
import { randomId } from '../../foundation/lib/ids.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { RequestLogThread } from './request-log-worker.js';

const T = Date.parse('2026-03-02T00:00:00.000Z');

function rowsOf(n: number, org = 'org-thread', from = T): RequestLogRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `log_th_${randomId(12)}`,
    organisation_id: org,
    workspace_id: 'ws-a',
    api_key_id: null,
    user_id: null,
    trace_id: `t-${i}`,
    endpoint: 'chat',
    provider: 'openai',
    model: 'gpt-4o',
    status: 200,
    stream: 0,
    cache_status: 'MISS',
    config_id: null,
    prompt_id: null,
    target_path: null,
    retry_count: 0,
    prompt_tokens: 3,
    completion_tokens: 2,
    total_tokens: 5,
    cost: 0.001,
    latency_ms: 40,
    metadata: '{}',
    error: null,
    hook_results: null,
    created_at: from + i,
    request_body: '{"model":"gpt-4o","messages":[]}',
  }));
}

/** How many turns the event loop made while `work` ran (none when the work held it from start to end). */
async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let turns = 0;
  let turning = true;
  const turn = () => {
    turns++;
    if (turning) setImmediate(turn);
  };
  setImmediate(turn);
  await work;
  turning = false;
  return turns;
}

async function countOf(store: Store, org: string): Promise<{ rows: number; rolledUp: number }> {
  const rows = await store.db
    .selectFrom('request_logs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organisation_id', '=', org)
    .executeTakeFirstOrThrow();
  // Each row counts once per bucket size: the sums of one size.
  const rolled = await store.db
    .selectFrom('request_log_rollups')
    .select(['bucket_ms', (eb) => eb.fn.sum<number>('requests').as('n')])
    .where('organisation_id', '=', org)
    .groupBy('bucket_ms')
    .execute();
  return { rows: Number(rows.n), rolledUp: Number(rolled[0]?.n ?? 0) };
}

describe('the request log written by its own thread (SQLite file)', () => {
  let dir: string;
  let store: Store;
  let thread: RequestLogThread;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-log-thread-'));
    const path = join(dir, 'gateway.db');
    thread = builtRequestLogThread(path);
    store = await openStore({ kind: 'sqlite', path, requestLogThread: thread });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits a batch and its rollups before the write settles; the main connection reads them', async () => {
    expect(store.requestLogThread).toBe(thread);
    await insertRequestLogs(store, rowsOf(70));
    expect(await countOf(store, 'org-thread')).toEqual({ rows: 70, rolledUp: 70 });
  });

  it('keeps the event loop turning while a large batch is written', async () => {
    // Written on the main connection, the batch would hold the loop from the call until it settled: no turn in between.
    expect(await turnsDuring(insertRequestLogs(store, rowsOf(5000, 'org-big')))).toBeGreaterThan(5);
    expect((await countOf(store, 'org-big')).rows).toBe(5000);
  });

  it('refuses a batch with a duplicate row as a whole, with the store error (not "unavailable"), and writes the next one', async () => {
    const [first] = rowsOf(1, 'org-dup');
    await insertRequestLogs(store, [first!]);
    const batch = [...rowsOf(40, 'org-dup'), { ...first! }];
    const err = await insertRequestLogs(store, batch).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(isStoreUnavailable(err)).toBe(false);
    expect(await countOf(store, 'org-dup')).toEqual({ rows: 1, rolledUp: 1 });
    await insertRequestLogs(store, batch.slice(0, 40));
    expect(await countOf(store, 'org-dup')).toEqual({ rows: 41, rolledUp: 41 });
  });

  it("fails a thread's batch with store_unavailable when it cannot open the file, and starts a new thread for the next one", async () => {
    const later = join(dir, 'not-yet', 'gateway.db');
    const lone = builtRequestLogThread(later);
    const err = await lone.run('insertRequestLogs', rowsOf(3, 'org-later')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GatewayError);
    expect(isStoreUnavailable(err)).toBe(true);
    mkdirSync(join(dir, 'not-yet'));
    const other = await openStore({ kind: 'sqlite', path: later, requestLogThread: lone });
    try {
      await insertRequestLogs(other, rowsOf(3, 'org-later'));
      expect(await countOf(other, 'org-later')).toEqual({ rows: 3, rolledUp: 3 });
    } finally {
      await other.close();
    }
  });

  it("runs the retention's deletes and the rollup backfill in the thread, while the loop turns", async () => {
    // A day older than every other row here: the retention deletes the oldest rows, whoever they belong to.
    const rows = rowsOf(6000, 'org-old', T - 86_400_000);
    for (let i = 0; i < rows.length; i += 500) await insertRequestLogs(store, rows.slice(i, i + 500));
    // ~80 ms on the main connection, where it would hold the loop from the call until it settled.
    let deleted = 0;
    expect(await turnsDuring(deleteRequestLogsBefore(store, T - 86_400_000 + 5000, 5000).then((n) => (deleted = n)))).toBeGreaterThan(5);
    expect(deleted).toBe(5000);
    // Calls sent together run in turn (the rollups' delete is a transaction of several statements).
    const [, buckets, backfilled] = await Promise.all([
      insertRequestLogs(store, rowsOf(10, 'org-new')),
      deleteRollupBucketsBefore(store, 'org-old', 60_000, T),
      backfillRollups(store, 100),
    ]);
    expect(buckets).toBe(1);
    expect(backfilled).toBe(0);
    expect((await countOf(store, 'org-old')).rows).toBe(1000);
    expect((await countOf(store, 'org-new')).rows).toBe(10);
  });

  it('starts no thread for a rollup backfill with nothing to add (the usual run), and one when there is', async () => {
    const path = join(dir, 'backfill.db');
    const lazy = builtRequestLogThread(path);
    const other = await openStore({ kind: 'sqlite', path, requestLogThread: lazy });
    try {
      expect(await backfillRollups(other, 100)).toBe(0);
      expect(lazy.started).toBe(false);
      // Rows without rollups, as a replica older than the rollups wrote them.
      await other.db
        .insertInto('request_logs')
        .values(rowsOf(7, 'org-legacy').map((r) => ({ ...r, rolled_up: 0 })))
        .execute();
      expect(await backfillRollups(other, 100)).toBe(7);
      expect(lazy.started).toBe(true);
      expect(await countOf(other, 'org-legacy')).toEqual({ rows: 7, rolledUp: 7 });
    } finally {
      await other.close();
    }
  });

  it('closes without a thread started, and twice', async () => {
    const idle = builtRequestLogThread(join(dir, 'idle.db'));
    await idle.close();
    await idle.close();
  });
});
