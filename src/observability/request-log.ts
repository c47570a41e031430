import type { Store } from '../store/store.js';
import { insertRequestLogs, type RequestLogRow } from '../store/repos/request-logs.js';
import type { Logger } from './logger.js';
import { redactSecrets } from '../lib/redact-secrets.js';

/**
 * The request log pipeline: the hot path only pushes a row into memory; rows leave in batches on a
 * timer (or when the batch fills), off the request path. A full queue drops rows and counts them
 * rather than slowing requests.
 */
export class RequestLogWriter {
  private queue: RequestLogRow[] = [];
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  dropped = 0;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly opts: { flushMs: number; batchSize: number; maxQueue: number } = { flushMs: 250, batchSize: 500, maxQueue: 50_000 },
  ) {}

  /** Queues one row (its error text with secrets redacted); never blocks and never throws. */
  push(row: RequestLogRow): void {
    if (this.queue.length >= this.opts.maxQueue) {
      this.dropped++;
      return;
    }
    if (row.error) row.error = redactSecrets(row.error);
    this.queue.push(row);
    if (this.queue.length >= this.opts.batchSize) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.opts.flushMs);
      this.timer.unref();
    }
  }

  /** Writes everything queued so far. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.flushing = (async () => {
      for (let i = 0; i < batch.length; i += this.opts.batchSize) {
        try {
          await insertRequestLogs(this.store, batch.slice(i, i + this.opts.batchSize));
        } catch (err) {
          this.dropped += Math.min(this.opts.batchSize, batch.length - i);
          this.logger.warn({ err }, 'request log batch could not be written');
        }
      }
    })();
    await this.flushing;
    this.flushing = undefined;
  }
}
