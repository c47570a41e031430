import { sql, type Transaction } from 'kysely';
import type { Store } from '../store.js';
import type { BatchesTable, BatchLinesTable, Database } from '../schema.js';
import type { BatchObject, BatchStatus } from '../../../foundation/spec/batches.js';

/**
 * What a gateway-managed batch needs to run its lines later as its creator would have: the routing
 * headers of the create request (never the gateway key), its organisation and the id of its key.
 */
export interface BatchRoute {
  headers: Record<string, string>;
  organisation_id: string;
  api_key_id: string | null;
}

/**
 * A batch's route as stored: the captured headers sealed, each value `{sealed, hint}`
 * (`foundation/lib/route-headers.ts` seals and opens them); never returned nor logged.
 */
export interface StoredBatchRoute {
  headers: Record<string, unknown>;
  organisation_id: string;
  api_key_id: string | null;
}

/** A batch row: the batch object, how it runs (`gateway` or `native`) and the routing headers captured at creation, sealed. */
export interface BatchRow {
  id: string;
  workspace_id: string;
  mode: 'gateway' | 'native';
  provider: string | null;
  virtual_key: string | null;
  status: BatchStatus;
  batch: BatchObject;
  route: StoredBatchRoute;
  lease_owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** A claimed input line, with the times it was already handed to the provider (by this or a dead worker). */
export interface ClaimedLine {
  line_no: number;
  custom_id: string;
  body: string;
  dispatches: number;
}

/** Line counts of a batch by state and result. */
export interface LineCounts {
  total: number;
  pending: number;
  running: number;
  ok: number;
  failed: number;
}

export async function insertBatch(store: Store, row: BatchRow): Promise<void> {
  await store.db.insertInto('batches').values(toRow(row)).execute();
}

/** A batch of this workspace (or any workspace when `workspaceId` is undefined). */
export async function getBatch(store: Store, id: string, workspaceId?: string): Promise<BatchRow | undefined> {
  let q = store.db.selectFrom('batches').selectAll().where('id', '=', id);
  if (workspaceId !== undefined) q = q.where('workspace_id', '=', workspaceId);
  const row = await q.executeTakeFirst();
  return row && fromRow(row);
}

/** One page of the workspace's gateway-managed batches, newest first, after the cursor id. */
export async function listBatches(
  store: Store,
  workspaceId: string,
  after: string | undefined,
  limit: number,
): Promise<{ rows: BatchRow[]; hasMore: boolean }> {
  let q = store.db.selectFrom('batches').selectAll().where('workspace_id', '=', workspaceId).where('mode', '=', 'gateway');
  if (after) {
    const cursor = await getBatch(store, after, workspaceId);
    if (cursor)
      q = q.where((eb) =>
        eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]),
      );
  }
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return { rows: rows.slice(0, limit).map(fromRow), hasMore: rows.length > limit };
}

/**
 * Writes a new status and batch object when the batch is still in one of `from` (a compare-and-set
 * transition) and, with `owner`, its step lease is still `owner`'s; true when it applied. Clears the
 * lease unless `keepLease`.
 */
export async function transitionBatch(
  store: Store,
  id: string,
  from: readonly BatchStatus[],
  batch: BatchObject,
  now: number,
  keepLease = false,
  owner?: string,
): Promise<boolean> {
  let q = store.db
    .updateTable('batches')
    .set({
      status: batch.status,
      batch: JSON.stringify(batch),
      updated_at: now,
      ...(keepLease ? {} : { lease_owner: null, lease_until: null }),
    })
    .where('id', '=', id)
    .where('status', 'in', [...from]);
  if (owner !== undefined) q = q.where('lease_owner', '=', owner);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Thrown by a fenced write when the batch's step lease is no longer the writer's (another replica took the step over). */
export class BatchLeaseLost extends Error {
  constructor(id: string) {
    super(`The lease of batch '${id}' was taken over.`);
  }
}

/**
 * Runs `write` in a transaction that first locks the batch row and checks `owner` still holds its step
 * lease (PostgreSQL: `FOR UPDATE`, so a takeover waits for the write and the write after a takeover
 * sees it); throws {@link BatchLeaseLost} otherwise.
 */
async function fenced<T>(store: Store, id: string, owner: string, write: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return store.db.transaction().execute(async (trx) => {
    let q = trx.selectFrom('batches').select('lease_owner').where('id', '=', id);
    if (store.dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (row?.lease_owner !== owner) throw new BatchLeaseLost(id);
    return write(trx);
  });
}

/** Takes (or renews) the batch-level lease for a step (validation, finalisation) when it is free, expired or ours. */
export async function leaseBatch(
  store: Store,
  id: string,
  statuses: readonly BatchStatus[],
  owner: string,
  now: number,
  until: number,
): Promise<boolean> {
  const res = await store.db
    .updateTable('batches')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', '=', id)
    .where('status', 'in', [...statuses])
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('lease_owner', '=', owner)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Extends every batch-step lease `owner` holds to `until` (the worker's heartbeat: a long step keeps its lease). */
export async function renewBatchLeases(store: Store, owner: string, until: number): Promise<void> {
  await store.db.updateTable('batches').set({ lease_until: until }).where('lease_owner', '=', owner).execute();
}

/** Ids and statuses of gateway-managed batches with work left. */
export async function activeBatches(store: Store, statuses: readonly BatchStatus[]): Promise<Array<{ id: string; status: BatchStatus }>> {
  const rows = await store.db
    .selectFrom('batches')
    .select(['id', 'status'])
    .where('mode', '=', 'gateway')
    .where('status', 'in', [...statuses])
    .orderBy('created_at')
    .limit(100)
    .execute();
  return rows.map((r) => ({ id: r.id, status: r.status as BatchStatus }));
}

/**
 * Inserts validated input lines (chunked). With `owner`, each chunk is written only while `owner`
 * holds the batch's step lease ({@link BatchLeaseLost} otherwise), so a validation taken over by
 * another replica cannot add lines to the new one's.
 */
export async function insertLines(
  store: Store,
  batchId: string,
  lines: Array<{ line_no: number; custom_id: string; body: string }>,
  owner?: string,
): Promise<void> {
  for (let i = 0; i < lines.length; i += 200) {
    const rows: BatchLinesTable[] = lines.slice(i, i + 200).map((l) => ({
      ...l,
      batch_id: batchId,
      state: 'pending',
      ok: null,
      result: null,
      owner: null,
      claimed_at: null,
      attempts: 0,
      finished_at: null,
      dispatches: 0,
      dispatched_at: null,
    }));
    if (owner === undefined) await store.db.insertInto('batch_lines').values(rows).execute();
    else await fenced(store, batchId, owner, (trx) => trx.insertInto('batch_lines').values(rows).execute());
  }
}

/** Removes every line of a batch (a validation that is restarted or failed) while `owner` holds its step lease; false when it does not. */
export async function deleteLines(store: Store, batchId: string, owner: string): Promise<boolean> {
  try {
    await fenced(store, batchId, owner, (trx) => trx.deleteFrom('batch_lines').where('batch_id', '=', batchId).execute());
    return true;
  } catch (err) {
    if (err instanceof BatchLeaseLost) return false;
    throw err;
  }
}

/**
 * Claims up to `n` pending lines of a batch (and lines whose claim is older than `staleBefore`: their
 * worker died) for `owner`, in line order. PostgreSQL skips rows other replicas are claiming
 * (`FOR UPDATE SKIP LOCKED`), so each line goes to one worker; SQLite serialises writers.
 */
export async function claimLines(
  store: Store,
  batchId: string,
  owner: string,
  now: number,
  staleBefore: number,
  n: number,
): Promise<ClaimedLine[]> {
  const lock = store.dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const res = await sql<ClaimedLine>`
    update batch_lines set state = 'running', owner = ${owner}, claimed_at = ${now}, attempts = attempts + 1
    where (batch_id, line_no) in (
      select batch_id, line_no from batch_lines
      where batch_id = ${batchId} and (state = 'pending' or (state = 'running' and claimed_at < ${staleBefore}))
        and exists (select 1 from batches where batches.id = ${batchId} and batches.status = 'in_progress')
      order by line_no limit ${n} ${lock}
    )
    returning line_no, custom_id, body, dispatches`.execute(store.db);
  return res.rows
    .map((r) => ({ ...r, line_no: Number(r.line_no), dispatches: Number(r.dispatches) }))
    .sort((a, b) => a.line_no - b.line_no);
}

/**
 * Records, before a send, that `owner` hands the line to the provider (`dispatches + 1`), while it still
 * holds the claim and the line was dispatched fewer than `maxDispatches` times; false otherwise (the
 * line must not be sent). Committed before the request leaves, so a crash cannot lose the record.
 */
export async function markDispatched(
  store: Store,
  batchId: string,
  lineNo: number,
  owner: string,
  maxDispatches: number,
  now: number,
): Promise<boolean> {
  const res = await store.db
    .updateTable('batch_lines')
    .set((eb) => ({ dispatches: eb('dispatches', '+', 1), dispatched_at: now }))
    .where('batch_id', '=', batchId)
    .where('line_no', '=', lineNo)
    .where('owner', '=', owner)
    .where('state', '=', 'running')
    .where('dispatches', '<', maxDispatches)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Renews the claims `owner` holds (a heartbeat, so live work is not taken over). */
export async function renewClaims(store: Store, owner: string, now: number): Promise<void> {
  await store.db.updateTable('batch_lines').set({ claimed_at: now }).where('owner', '=', owner).where('state', '=', 'running').execute();
}

/** Puts every running line back to pending (single-process SQLite start: nobody else can be running them); dispatch records stay. */
export async function releaseAllClaims(store: Store): Promise<void> {
  await store.db
    .updateTable('batch_lines')
    .set({ state: 'pending', owner: null, claimed_at: null })
    .where('state', '=', 'running')
    .execute();
}

/** Puts lines `owner` claimed but did not start back to pending (a cancel). */
export async function releaseLine(store: Store, batchId: string, lineNo: number, owner: string): Promise<void> {
  await store.db
    .updateTable('batch_lines')
    .set({ state: 'pending', owner: null, claimed_at: null })
    .where('batch_id', '=', batchId)
    .where('line_no', '=', lineNo)
    .where('owner', '=', owner)
    .where('state', '=', 'running')
    .execute();
}

/** Records a line's result when `owner` still holds it; false when another worker took it over. */
export async function finishLine(
  store: Store,
  batchId: string,
  lineNo: number,
  owner: string,
  ok: boolean,
  result: string,
  now: number,
): Promise<boolean> {
  const res = await store.db
    .updateTable('batch_lines')
    .set({ state: 'done', ok: ok ? 1 : 0, result, finished_at: now })
    .where('batch_id', '=', batchId)
    .where('line_no', '=', lineNo)
    .where('owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Counts a batch's lines by state and result. */
export async function countLines(store: Store, batchId: string): Promise<LineCounts> {
  const rows = await store.db
    .selectFrom('batch_lines')
    .select(['state', 'ok', (eb) => eb.fn.countAll<number>().as('n')])
    .where('batch_id', '=', batchId)
    .groupBy(['state', 'ok'])
    .execute();
  const c: LineCounts = { total: 0, pending: 0, running: 0, ok: 0, failed: 0 };
  for (const r of rows) {
    const n = Number(r.n);
    c.total += n;
    if (r.state === 'pending') c.pending += n;
    else if (r.state === 'running') c.running += n;
    else if (Number(r.ok) === 1) c.ok += n;
    else c.failed += n;
  }
  return c;
}

/** Running lines of a batch whose claim is older than `staleBefore` (their worker died). */
export async function countStaleRunning(store: Store, batchId: string, staleBefore: number): Promise<number> {
  const r = await store.db
    .selectFrom('batch_lines')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where('state', '=', 'running')
    .where('claimed_at', '<', staleBefore)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** Lines of a batch in order, a page at a time (output files are written from these). */
export async function readLines(
  store: Store,
  batchId: string,
  fromLine: number,
  limit: number,
): Promise<Array<Pick<BatchLinesTable, 'line_no' | 'custom_id' | 'state' | 'ok' | 'result'>>> {
  const rows = await store.db
    .selectFrom('batch_lines')
    .select(['line_no', 'custom_id', 'state', 'ok', 'result'])
    .where('batch_id', '=', batchId)
    .where('line_no', '>=', fromLine)
    .orderBy('line_no')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, line_no: Number(r.line_no), ok: r.ok === null ? null : Number(r.ok) }));
}

function toRow(r: BatchRow): BatchesTable {
  return { ...r, batch: JSON.stringify(r.batch), route: JSON.stringify(r.route) };
}

function fromRow(r: BatchesTable): BatchRow {
  return {
    ...r,
    mode: r.mode as BatchRow['mode'],
    status: r.status as BatchStatus,
    batch: JSON.parse(r.batch),
    route: JSON.parse(r.route),
    lease_until: r.lease_until === null ? null : Number(r.lease_until),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
