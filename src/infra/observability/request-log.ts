import { isStoreUnavailable } from '../store/store-errors.js';
import type { RequestLogRow } from '../store/repos/request-logs.js';
import type { Logger } from './logger.js';
import { redactSecrets } from '../../foundation/lib/redact-secrets.js';
import { serialiseLogRow, type QueuedLogRow } from './serialise-log-row.js';

/** Tuning of the request log pipeline; every field has a default. */
export interface RequestLogOptions {
  /** Wait before writing a partial batch (ms). */
  flushMs: number;
  /** Rows per INSERT. */
  batchSize: number;
  /** Rows held in memory at most (new and waiting for the store); past it the oldest are dropped. */
  maxRows: number;
  /** First wait before retrying after the store was unreachable (ms); doubles per failure. */
  retryBaseMs: number;
  /** Longest wait between retries (ms). */
  retryMaxMs: number;
  /** Dropped rows are logged at most once per this interval (ms), with their count. */
  reportEveryMs: number;
}

const DEFAULTS: RequestLogOptions = {
  flushMs: 250,
  batchSize: 500,
  maxRows: 50_000,
  retryBaseMs: 250,
  retryMaxMs: 5000,
  reportEveryMs: 10_000,
};

/**
 * The request log pipeline: the hot path only pushes a row into memory; rows leave in batches on a
 * timer (or when the batch fills), off the request path. While the store is unreachable the rows stay
 * in memory and are retried with exponential backoff, so a short outage loses none; memory is bounded
 * by `maxRows` (the oldest rows are dropped first, counted in `dropped` and `onDropped`, and logged at
 * most once per `reportEveryMs`). A row the store refuses for another reason is dropped alone, not its
 * batch.
 */
export class RequestLogWriter {
  private pending: QueuedLogRow[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private retryDelay = 0;
  private unreported = 0;
  private reportTimer?: NodeJS.Timeout;
  private readonly opts: RequestLogOptions;
  /** Rows dropped since start (memory bound reached, or refused by the store). */
  dropped = 0;

  /** `insert` writes rows to the store (`insertRequestLogs`); it throws `store_unavailable` while the store is unreachable. */
  constructor(
    private readonly insert: (rows: RequestLogRow[]) => Promise<void>,
    private readonly logger: Logger,
    opts: Partial<RequestLogOptions> = {},
    private readonly onDropped: (rows: number) => void = () => {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** Rows in memory, not yet written. */
  get backlog(): number {
    return this.pending.length;
  }

  /**
   * Queues one row (its error text with secrets redacted); never blocks and never throws. Its attempts
   * and bodies stay values until their batch is written (`serialiseLogRow`).
   */
  push(row: QueuedLogRow): void {
    if (row.error) row.error = redactSecrets(row.error);
    this.pending.push(row);
    this.bound();
    // A flush in progress writes the full batches that arrive meanwhile, the timer the rest; while backing off, the retry timer writes.
    if (this.retryDelay === 0 && !this.flushing && this.pending.length >= this.opts.batchSize) void this.flush();
    else this.schedule(this.retryDelay || this.opts.flushMs);
  }

  /**
   * Writes everything in memory now (also while backing off). Rows the unreachable store could not
   * take stay in memory for the next retry; this never throws.
   */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.flushing) await this.flushing;
    if (this.pending.length === 0) return;
    this.flushing = this.writePending();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, ms);
    this.timer.unref();
  }

  /**
   * Writes the rows queued when it began, then every full batch queued meanwhile. A write takes a while
   * (the store's round trip; SQLite's thread), and rows keep arriving during it: writing those at once would
   * turn the log into a stream of small batches, each with its fixed cost (a transaction, the rollups'
   * upserts, a hand-over to the thread). They wait for the timer or a full batch instead.
   */
  private async writePending(): Promise<void> {
    let owed = this.pending.length;
    while (this.pending.length > 0 && (owed > 0 || this.pending.length >= this.opts.batchSize)) {
      const batch = this.pending.splice(0, this.opts.batchSize);
      owed -= batch.length;
      const unwritten = await this.write(batch);
      if (unwritten.length > 0) {
        this.pending = unwritten.concat(this.pending);
        this.bound();
        this.retryDelay = Math.min(this.opts.retryMaxMs, this.retryDelay ? this.retryDelay * 2 : this.opts.retryBaseMs);
        this.schedule(this.retryDelay);
        return;
      }
      if (this.retryDelay) {
        this.retryDelay = 0;
        this.logger.info('request log writes resumed');
      }
    }
  }

  /** Writes a batch; returns the rows left unwritten because the store is unreachable. */
  private async write(queued: QueuedLogRow[]): Promise<QueuedLogRow[]> {
    const batch = this.serialise(queued);
    if (batch.length === 0) return [];
    try {
      await this.insert(batch);
      return [];
    } catch (err) {
      if (isStoreUnavailable(err)) return this.unreachable(err, batch);
    }
    // One row the store refuses must not take its batch with it: write them one by one.
    for (let i = 0; i < batch.length; i++) {
      try {
        await this.insert([batch[i]!]);
      } catch (err) {
        if (isStoreUnavailable(err)) return this.unreachable(err, batch.slice(i));
        this.drop(1, err);
      }
    }
    return [];
  }

  /**
   * The rows as stored; a row whose values cannot be serialised (a body holding a `BigInt` or a cycle: a bug where it
   * was built) is dropped and counted, not thrown: the flush runs on a timer, where a throw would end the process.
   */
  private serialise(queued: QueuedLogRow[]): RequestLogRow[] {
    const batch: RequestLogRow[] = [];
    for (const row of queued) {
      try {
        batch.push(serialiseLogRow(row));
      } catch (err) {
        this.drop(1, err);
      }
    }
    return batch;
  }

  private unreachable(err: unknown, rows: QueuedLogRow[]): QueuedLogRow[] {
    this.logger.warn(
      { err: (err as Error)?.message, backlog: this.pending.length + rows.length },
      'request log store unreachable; rows kept in memory and retried',
    );
    return rows;
  }

  /** Drops the oldest rows past `maxRows`, a twentieth of the bound at a time (not one shift per push). */
  private bound(): void {
    const excess = this.pending.length - this.opts.maxRows;
    if (excess > 0) this.drop(this.pending.splice(0, Math.max(excess, Math.ceil(this.opts.maxRows / 20))).length);
  }

  private drop(rows: number, err?: unknown): void {
    this.dropped += rows;
    this.onDropped(rows);
    this.unreported += rows;
    if (this.reportTimer) return;
    this.report(err);
  }

  /** Logs the rows dropped since the last report, then at most once per interval while drops go on. */
  private report(err?: unknown): void {
    if (this.unreported === 0) {
      this.reportTimer = undefined;
      return;
    }
    this.logger.warn(
      { dropped: this.unreported, total: this.dropped, ...(err ? { err: (err as Error)?.message } : {}) },
      'request log rows dropped',
    );
    this.unreported = 0;
    this.reportTimer = setTimeout(() => this.report(), this.opts.reportEveryMs);
    this.reportTimer.unref();
  }
}
