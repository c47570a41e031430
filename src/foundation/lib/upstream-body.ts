import { errors as undiciErrors, util as undiciUtil } from 'undici';
import type { AbortSource } from './lazy-abort.js';
import { AbortableHandler } from './abortable-handler.js';

/** Bytes queued unread before reading the upstream socket pauses (a Readable's default high-water mark). */
const HIGH_WATER_MARK = 64 * 1024;

/** What a streamed call resolves with once the status and headers arrived. */
export interface StreamedHead {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * An undici dispatch handler whose response body is read straight from its callbacks: the body of a
 * streamed upstream call without a `Readable` (no stream state, no async resource, no `nextTick` per
 * chunk, no end-of-stream listeners), which undici's `request` builds for every call. Measured on the
 * streamed chat path: bench/README.md.
 *
 * Iterate it once (`for await`); chunks arrive as undici delivers them. Past 64 KiB read from the
 * socket and not yet taken, undici stops reading until the reader catches up (backpressure, as a
 * Readable's high-water mark). Leaving the loop early, `return()` or `destroy()` aborts the call;
 * `text()` reads what is left as UTF-8. A failure after the headers (reset, body timeout, abort) is
 * thrown by the next read, as undici raised it.
 */
export class UpstreamBody extends AbortableHandler implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  private queue: Buffer[] = [];
  private queued = 0;
  /** `done`: the upstream completed; `failed`: `error` is set; `open` while bytes may still come. */
  private state: 'head' | 'open' | 'done' | 'failed' = 'head';
  private error: Error | null = null;
  private reader: { resolve: (r: IteratorResult<Uint8Array>) => void; reject: (err: unknown) => void } | null = null;
  private resumeFn: (() => void) | null = null;
  private paused = false;
  private flushing = false;

  constructor(
    signal: AbortSource | undefined,
    private resolveHead: ((head: StreamedHead) => void) | null,
    private rejectHead: ((err: unknown) => void) | null,
  ) {
    super(signal);
  }

  // ---- undici's dispatch handler (onConnect: AbortableHandler) ----

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    this.heard();
    this.resumeFn = resume;
    this.state = 'open';
    const resolve = this.resolveHead!;
    this.resolveHead = this.rejectHead = null;
    resolve({ status: statusCode, headers: undiciUtil.parseHeaders(rawHeaders) as StreamedHead['headers'], body: this });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.state !== 'open') return true;
    this.heard();
    this.queue.push(chunk);
    this.queued += chunk.length;
    // A waiting reader gets every chunk of this socket read at once (undici calls onData per HTTP chunk,
    // synchronously within one read), as a Readable's reader does.
    if (this.reader !== null && !this.flushing) {
      this.flushing = true;
      queueMicrotask(this.flush);
    }
    if (this.queued < HIGH_WATER_MARK) return true;
    this.paused = true;
    return false;
  }

  onComplete(): void {
    if (this.state !== 'open') return;
    this.state = 'done';
    this.detach();
    const reader = this.reader;
    if (reader !== null && this.queue.length === 0) {
      this.reader = null;
      reader.resolve(DONE);
    }
  }

  onError(err: Error): void {
    if (this.state === 'done' || this.state === 'failed') return;
    const before = this.state === 'head';
    this.state = 'failed';
    this.error = err;
    this.queue.length = 0;
    this.queued = 0;
    this.detach();
    if (before) {
      const reject = this.rejectHead!;
      this.resolveHead = this.rejectHead = null;
      reject(err);
      return;
    }
    const reader = this.reader;
    if (reader !== null) {
      this.reader = null;
      reader.reject(err);
    }
  }

  // ---- the body ----

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.queue.length > 0) return Promise.resolve({ done: false, value: this.take() });
    if (this.state === 'done') return Promise.resolve(DONE);
    if (this.state === 'failed') return Promise.reject(this.error);
    return new Promise((resolve, reject) => {
      this.reader = { resolve, reject };
    });
  }

  /** Hands the waiting reader what arrived (scheduled by onData). */
  private readonly flush = (): void => {
    this.flushing = false;
    const reader = this.reader;
    if (reader === null || this.queue.length === 0) return;
    this.reader = null;
    reader.resolve({ done: false, value: this.take() });
  };

  /** Every queued chunk as one (the reader of a Readable gets its whole buffer too); resumes a paused socket. */
  private take(): Buffer {
    const queue = this.queue;
    const chunk = queue.length === 1 ? queue[0] : Buffer.concat(queue, this.queued);
    queue.length = 0;
    this.queued = 0;
    if (this.paused) {
      this.paused = false;
      this.heard();
      this.resumeFn?.();
    }
    return chunk;
  }

  /** The reader left early (`break`, a throw in its loop): the call is aborted. */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.destroy();
    return Promise.resolve(DONE);
  }

  /** Aborts the call unless it already ended; later reads throw `err` (default undici's `RequestAbortedError`). */
  destroy(err?: Error): void {
    if (this.state === 'done' || this.state === 'failed') return;
    this.abortWith(err ?? new undiciErrors.RequestAbortedError());
  }

  /** The rest of the body as UTF-8 text. */
  async text(): Promise<string> {
    const parts: Buffer[] = [];
    for await (const chunk of this) parts.push(chunk as Buffer);
    return Buffer.concat(parts).toString('utf8');
  }

  protected override pausedByReader(): boolean {
    return this.paused;
  }

  /** Aborts the call; undici's abort calls onError at once (not connected yet, onConnect aborts), and a reader waiting now hears it either way. */
  protected override abortWith(reason: Error): void {
    super.abortWith(reason);
    if (this.state === 'open') this.onError(reason);
  }
}
