import type { Readable } from 'node:stream';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { randomId } from '../../../foundation/lib/ids.js';
import type { GatewayFiles } from '../files/gateway-files.js';
import { isGatewayFileId } from '../files/gateway-files.js';
import { resolveResourceTarget, type ResourceForwarder } from '../files/provider-resource.js';
import type { AuthKey } from '../../../runtime/snapshot.js';
import type { BatchObject, BatchStatus } from '../../../foundation/spec/batches.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { getFile } from '../../../infra/store/repos/files.js';
import {
  activeBatches,
  BatchLeaseLost,
  claimLines,
  countLines,
  countStaleRunning,
  deleteLines,
  finishLine,
  getBatch,
  insertLines,
  leaseBatch,
  markDispatched,
  releaseAllClaims,
  releaseLine,
  renewBatchLeases,
  renewClaims,
  transitionBatch,
  type BatchRoute,
  type BatchRow,
  type ClaimedLine,
} from '../../../infra/store/repos/batches.js';
import { SecretBoxError } from '../../../foundation/lib/secret-box.js';
import { openedRoute } from './capture-route.js';
import { batchLineIdempotencyKey, type BatchLineDispatch } from './batch-line-dispatch.js';
import { runBatchLine, type LineResult } from './run-batch-line.js';
import { validateBatchInput } from './validate-batch-input.js';
import { seconds } from './batch-view.js';
import { writeBatchResults } from './write-batch-results.js';

/** A batch as the worker runs it: its stored row with the routing headers opened (held in memory only). */
type RunnableBatch = Omit<BatchRow, 'route'> & { route: BatchRoute };

/** Tuning of the batch worker. */
export interface BatchWorkerOptions {
  /** Lines run at once by this process (`GATEWAY_BATCH_CONCURRENCY`, default 16). */
  concurrency: number;
  /** A claim not renewed for this long belongs to a dead worker and is taken over (`GATEWAY_BATCH_LEASE_MS`, default 60 s). */
  leaseMs: number;
  /** Pause between scans for work while batches are active (`GATEWAY_BATCH_POLL_MS`, default 200 ms). */
  pollMs: number;
  /**
   * Pause after a scan that found no active batch (`GATEWAY_BATCH_IDLE_POLL_MS`; default ten times `pollMs`, at
   * most 2 s, never below `pollMs`): an idle gateway scans twice a second at most instead of five times. A batch
   * created or cancelled on this replica wakes the worker at once (`poke`); another replica's is found within it.
   */
  idlePollMs?: number;
}

/** Reads the worker options from the environment. */
export function batchWorkerOptions(env: NodeJS.ProcessEnv = process.env): BatchWorkerOptions {
  const int = (v: string | undefined, d: number) => (v && Number.isInteger(Number(v)) && Number(v) > 0 ? Number(v) : d);
  const pollMs = int(env.GATEWAY_BATCH_POLL_MS, 200);
  return {
    concurrency: int(env.GATEWAY_BATCH_CONCURRENCY, 16),
    leaseMs: int(env.GATEWAY_BATCH_LEASE_MS, 60_000),
    pollMs,
    idlePollMs: int(env.GATEWAY_BATCH_IDLE_POLL_MS, idlePollOf(pollMs)),
  };
}

/** The default pause after a scan that found nothing: ten scans' pauses, at most 2 s, never below `pollMs`. */
export function idlePollOf(pollMs: number): number {
  return Math.max(pollMs, Math.min(pollMs * 10, 2_000));
}

/**
 * Most times one line is handed to the provider: its first send and one re-send when the worker that
 * sent it died before recording the answer. A line found dispatched this often without a result fails.
 */
export const MAX_LINE_DISPATCHES = 2;

/**
 * Runs gateway-managed batches in the background: validates input files into per-line rows, claims
 * lines (each once; PostgreSQL replicas share them through `FOR UPDATE SKIP LOCKED`), runs them through
 * the data plane with bounded concurrency, records each result durably, and finalises (output and
 * error files, counts, timestamps). Line claims and batch-step leases carry a heartbeat on its own
 * timer (a long step never starves it, so a live worker's step is not taken over by another replica);
 * a dead worker's claims and leases go stale after `leaseMs` and are taken over by whoever is alive.
 * A finished line is never run again. Each send is recorded (`dispatches`) before it leaves and
 * carries the line's `Idempotency-Key`, so a line whose worker died mid-request is re-sent at most
 * once ({@link MAX_LINE_DISPATCHES}).
 */
export class BatchWorker {
  readonly owner = `w_${randomId(12)}`;
  private timer?: NodeJS.Timeout;
  private ticking = false;
  /** Poked during a scan (which may have missed the new batch): the next pause is the short one. */
  private poked = false;
  private stopped = false;
  private beat?: NodeJS.Timeout;
  private beating = false;
  private readonly inflight = new Map<string, { promise: Promise<void>; abort: AbortController; batchId: string; lineNo: number }>();

  constructor(
    private readonly deps: GatewayDeps,
    private readonly files: GatewayFiles,
    private readonly forwarder: ResourceForwarder,
    private readonly opts: BatchWorkerOptions,
  ) {}

  /** Starts the loop. On SQLite (one process) claims left by a previous run are released at once. */
  async start(): Promise<void> {
    if (this.deps.store.dialect === 'sqlite') await releaseAllClaims(this.deps.store);
    this.beat = setInterval(() => void this.heartbeat(), Math.max(10, Math.floor(this.opts.leaseMs / 4)));
    this.beat.unref();
    this.schedule(0);
  }

  /** Wakes the loop now (a batch was created or cancelled). */
  poke(): void {
    if (this.ticking) this.poked = true;
    else if (!this.stopped) this.schedule(0);
  }

  /** Stops claiming; waits up to `graceMs` for running lines, then aborts the rest and hands their claims back. */
  async close(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const all = Promise.all([...this.inflight.values()].map((f) => f.promise));
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref())]);
    if (timedOut) {
      for (const f of this.inflight.values()) f.abort.abort(new Error('gateway shutting down'));
      await all;
    }
    if (this.beat) clearInterval(this.beat);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    this.poked = false;
    let idle = false;
    try {
      const active = await activeBatches(this.deps.store, ['validating', 'in_progress', 'finalizing', 'cancelling']);
      idle = active.length === 0 && this.inflight.size === 0;
      for (const { id, status } of active) {
        if (this.stopped) break;
        const stored = await getBatch(this.deps.store, id);
        if (!stored) continue;
        const row = await this.opened(stored, status);
        if (!row) continue;
        if (status === 'validating') await this.validate(row);
        else if (status === 'in_progress') await this.progress(row);
        else if (status === 'finalizing') await this.finalize(row, 'finalizing');
        else if (status === 'cancelling') await this.cancel(row);
      }
    } catch (err) {
      this.deps.metrics.warnings.inc({ component: 'batch-worker' });
      this.deps.logger.warn({ err: (err as Error)?.message }, 'batch worker step failed');
    } finally {
      this.ticking = false;
      this.schedule(
        idle && !this.poked ? Math.max(this.opts.pollMs, this.opts.idlePollMs ?? idlePollOf(this.opts.pollMs)) : this.opts.pollMs,
      );
    }
  }

  /**
   * The batch with its sealed routing headers opened; one whose headers do not open (sealed with
   * another `GATEWAY_ENCRYPTION_KEY`) cannot run as its creator asked, so it fails, saying why.
   */
  private async opened(row: BatchRow, status: BatchStatus): Promise<RunnableBatch | undefined> {
    try {
      return { ...row, route: openedRoute(this.deps.secrets, row.id, row.route) };
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      const now = this.now();
      const message =
        "The batch's stored routing headers do not open with this gateway's encryption key (GATEWAY_ENCRYPTION_KEY changed?); create the batch again.";
      const batch: BatchObject = {
        ...row.batch,
        status: 'failed',
        failed_at: seconds(now),
        errors: { object: 'list', data: [{ code: 'batch_route_unavailable', message, param: null, line: null }] },
      };
      await transitionBatch(this.deps.store, row.id, [status], batch, now);
      this.deps.logger.warn({ batch: row.id }, 'batch routing headers do not open; batch failed');
      return undefined;
    }
  }

  private now(): number {
    return this.deps.clock.now();
  }

  /** Renews this worker's line claims and batch-step leases (every `leaseMs / 4`, whatever the loop is doing). */
  private async heartbeat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      const now = this.now();
      await renewClaims(this.deps.store, this.owner, now);
      await renewBatchLeases(this.deps.store, this.owner, now + this.opts.leaseMs);
    } catch (err) {
      this.deps.metrics.warnings.inc({ component: 'batch-worker' });
      this.deps.logger.warn({ err: (err as Error)?.message }, 'batch worker heartbeat failed');
    } finally {
      this.beating = false;
    }
  }

  private lease(row: RunnableBatch, statuses: BatchStatus[]): Promise<boolean> {
    const now = this.now();
    return leaseBatch(this.deps.store, row.id, statuses, this.owner, now, now + this.opts.leaseMs);
  }

  /**
   * Reads and checks the input file into line rows; `in_progress` when valid, `failed` with `errors`
   * otherwise. Every write is fenced by the step lease: once another replica took the step over, this
   * one stops without touching its lines or the batch.
   */
  private async validate(row: RunnableBatch): Promise<void> {
    if (!(await this.lease(row, ['validating']))) return;
    const store = this.deps.store;
    if (!(await deleteLines(store, row.id, this.owner))) return;
    let result: Awaited<ReturnType<typeof validateBatchInput>>;
    try {
      const input = await this.openInput(row);
      result = await validateBatchInput(input, row.batch.endpoint, (lines) => insertLines(store, row.id, lines, this.owner));
    } catch (err) {
      if (err instanceof BatchLeaseLost) return;
      const g = err instanceof GatewayError ? err : new GatewayError('internal_error', (err as Error)?.message);
      result = {
        total: 0,
        errors: [
          { code: 'invalid_input_file', message: `The input file could not be read: ${g.message}`, param: 'input_file_id', line: null },
        ],
      };
    }
    const now = this.now();
    if (result.errors.length > 0) {
      if (!(await deleteLines(store, row.id, this.owner))) return;
      const batch: BatchObject = {
        ...row.batch,
        status: 'failed',
        failed_at: seconds(now),
        errors: { object: 'list', data: result.errors },
      };
      await transitionBatch(store, row.id, ['validating'], batch, now, false, this.owner);
      return;
    }
    const batch: BatchObject = {
      ...row.batch,
      status: 'in_progress',
      in_progress_at: seconds(now),
      request_counts: { total: result.total, completed: 0, failed: 0 },
    };
    // A cancel during validation wins: the compare-and-set fails and the cancel step ends the batch.
    await transitionBatch(store, row.id, ['validating'], batch, now, false, this.owner);
  }

  private async openInput(row: RunnableBatch): Promise<Readable> {
    const fileId = row.batch.input_file_id;
    if (isGatewayFileId(fileId)) return this.files.open(row.workspace_id, fileId);
    const remembered = await getFile(this.deps.store, fileId, row.workspace_id);
    const rt = resolveResourceTarget(this.deps, row.route.headers, row.workspace_id, 'files', remembered);
    if (!rt?.api) throw new GatewayError('not_found', `No such file: '${fileId}'.`, { param: 'input_file_id' });
    const res = await this.forwarder.send(rt, { method: 'GET', path: `/files/${encodeURIComponent(fileId)}/content` });
    return res.body;
  }

  /** Claims free lines and starts them; moves to `finalizing` when none is left; `expired` past the window. */
  private async progress(row: RunnableBatch): Promise<void> {
    const now = this.now();
    if (row.batch.expires_at !== null && seconds(now) >= row.batch.expires_at) {
      if (await this.lease(row, ['in_progress'])) await this.finalize(row, 'in_progress', true);
      return;
    }
    const free = this.opts.concurrency - this.inflight.size;
    if (free > 0 && !this.stopped) {
      const claimed = await claimLines(this.deps.store, row.id, this.owner, now, now - this.opts.leaseMs, free);
      const key = this.keyOf(row);
      for (const line of claimed) this.startLine(row, key, line);
      if (claimed.length > 0) return;
    }
    const c = await countLines(this.deps.store, row.id);
    if (c.pending === 0 && c.running === 0 && (await this.lease(row, ['in_progress']))) await this.finalize(row, 'in_progress');
  }

  private keyOf(row: RunnableBatch): AuthKey | undefined {
    const id = row.route.api_key_id;
    for (const k of this.deps.runtime.current.apiKeysByHash.values()) if (k.id === id) return k;
    return undefined;
  }

  private startLine(row: RunnableBatch, key: AuthKey | undefined, line: ClaimedLine): void {
    const abort = new AbortController();
    const slot = `${row.id}:${line.line_no}`;
    const promise = (async () => {
      try {
        const result =
          line.dispatches >= MAX_LINE_DISPATCHES
            ? interruptedLine(row.id, line)
            : await runBatchLine(this.deps, {
                workspaceId: row.workspace_id,
                route: row.route,
                key,
                endpoint: row.batch.endpoint,
                customId: line.custom_id,
                body: JSON.parse(line.body),
                signal: abort.signal,
                dispatch: this.dispatchOf(row.id, line.line_no),
              });
        if (abort.signal.aborted) await releaseLine(this.deps.store, row.id, line.line_no, this.owner);
        else await finishLine(this.deps.store, row.id, line.line_no, this.owner, result.ok, JSON.stringify(result.line), this.now());
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error)?.message, batch: row.id, line: line.line_no }, 'batch line could not be recorded');
      } finally {
        this.inflight.delete(slot);
        this.poke();
      }
    })();
    this.inflight.set(slot, { promise, abort, batchId: row.id, lineNo: line.line_no });
  }

  /** Records each send of a line before it leaves (once per run); refuses when the claim was lost or the bound reached. */
  private dispatchOf(batchId: string, lineNo: number): BatchLineDispatch {
    let marked: Promise<void> | undefined;
    const mark = async () => {
      if (!(await markDispatched(this.deps.store, batchId, lineNo, this.owner, MAX_LINE_DISPATCHES, this.now()))) {
        throw new GatewayError(
          'conflict',
          'This batch line is no longer held by this worker or was already sent as often as allowed; it was not sent.',
        );
      }
    };
    return { idempotencyKey: batchLineIdempotencyKey(batchId, lineNo), dispatch: () => (marked ??= mark()) };
  }

  /** Writes the result files and ends the batch: `completed`, or `expired` (unfinished lines get `batch_expired` errors). */
  private async finalize(row: RunnableBatch, from: 'in_progress' | 'finalizing', expired = false): Promise<void> {
    const store = this.deps.store;
    if (from === 'finalizing' && !(await this.lease(row, ['finalizing']))) return;
    let batch = row.batch;
    if (from === 'in_progress') {
      batch = { ...batch, status: 'finalizing', finalizing_at: seconds(this.now()) };
      if (!(await transitionBatch(store, row.id, ['in_progress'], batch, this.now(), true))) return;
    }
    const unfinished = expired || (row.batch.expires_at !== null && seconds(this.now()) >= row.batch.expires_at);
    const files = await writeBatchResults(
      store,
      this.files,
      row.workspace_id,
      row.id,
      unfinished
        ? { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' }
        : undefined,
    );
    const c = await countLines(store, row.id);
    const now = this.now();
    const done: BatchObject = {
      ...batch,
      status: unfinished ? 'expired' : 'completed',
      ...(unfinished ? { expired_at: seconds(now) } : { completed_at: seconds(now) }),
      output_file_id: files.outputFileId,
      error_file_id: files.errorFileId,
      request_counts: { total: c.total, completed: c.ok, failed: c.failed + (unfinished ? c.pending + c.running : 0) },
    };
    await transitionBatch(store, row.id, ['finalizing'], done, now);
  }

  /** Ends a cancelling batch once no line of it is running: result files of what ran, `cancelled`. */
  private async cancel(row: RunnableBatch): Promise<void> {
    const store = this.deps.store;
    const c = await countLines(store, row.id);
    if (c.running > 0) {
      const mine = [...this.inflight.values()].some((f) => f.batchId === row.id);
      if (mine || c.running > (await this.staleRunning(row))) return;
    }
    if (!(await this.lease(row, ['cancelling']))) return;
    const files = await writeBatchResults(store, this.files, row.workspace_id, row.id);
    const now = this.now();
    const done: BatchObject = {
      ...row.batch,
      status: 'cancelled',
      cancelled_at: seconds(now),
      output_file_id: files.outputFileId,
      error_file_id: files.errorFileId,
      request_counts: { total: c.total, completed: c.ok, failed: c.failed },
    };
    await transitionBatch(store, row.id, ['cancelling'], done, now);
  }

  /** Running lines of the batch whose claim went stale (their worker died): they will not finish. */
  private async staleRunning(row: RunnableBatch): Promise<number> {
    return countStaleRunning(this.deps.store, row.id, this.now() - this.opts.leaseMs);
  }
}

/** The error answer of a line whose sends were all interrupted by a dying worker: it is not sent again. */
function interruptedLine(batchId: string, line: ClaimedLine): LineResult {
  const message = `The gateway stopped ${line.dispatches} times while this request was in flight, so it was not sent again (the provider may have run it; requests carried Idempotency-Key '${batchLineIdempotencyKey(batchId, line.line_no)}').`;
  return {
    ok: false,
    line: {
      id: `batch_req_${batchId}_${line.line_no}`,
      custom_id: line.custom_id,
      response: null,
      error: { code: 'batch_line_interrupted', message },
    },
  };
}
