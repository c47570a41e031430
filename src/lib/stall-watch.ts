import { errors as undiciErrors } from 'undici';

/** A call the watch can time out. */
export interface StallWatched {
  /** `performance.now()` past which the call has stalled. */
  stallDeadline: number;
  /** What it waits for: its response headers, or its body's next chunk. */
  stallPhase: 'headers' | 'body';
  /** Ends the call with undici's own timeout error (`toUpstreamError` makes it a 408 `request_timeout`). */
  stalled(err: Error): void;
}

/** When long upstream timeouts are watched here rather than by undici (see `StallWatch`). */
export interface StallWatchOptions {
  /** How often the watch looks at its calls, ms. */
  intervalMs: number;
  /** The shortest timeout watched here, ms: a shorter one keeps undici's own (precise) timer. */
  minTimeoutMs: number;
}

export const STALL_WATCH_DEFAULTS: StallWatchOptions = { intervalMs: 1000, minTimeoutMs: 10_000 };

/**
 * The upstream headers and body timeouts of the HTTP client's own calls, watched by one interval instead of a
 * timer per call. undici times a call out with its own timers: for a timeout over a second, an object in a
 * wheel that a tick every half second sweeps, and a call's timer (with the undici `Request` it holds) stays
 * there up to a second after the call ended. At thousands of calls a second those outlive the young
 * generation: ~150 bytes per call went to the old generation, which grew ~2 MB/s at 128 connections and set
 * the process's memory swinging between major collections (bench/README.md "Session 20"). Here a call is a
 * set entry, removed the moment it ends; the interval times out those past their deadline, to within
 * `intervalMs` (undici's wheel has the same resolution).
 */
export class StallWatch {
  private readonly calls = new Set<StallWatched>();
  private timer?: NodeJS.Timeout;

  constructor(readonly opts: StallWatchOptions = STALL_WATCH_DEFAULTS) {}

  /** Whether timeouts of these lengths are watched here. */
  takes(headersTimeoutMs: number, bodyTimeoutMs: number): boolean {
    return headersTimeoutMs >= this.opts.minTimeoutMs && bodyTimeoutMs >= this.opts.minTimeoutMs;
  }

  add(call: StallWatched): void {
    this.calls.add(call);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.opts.intervalMs);
      this.timer.unref();
    }
  }

  delete(call: StallWatched): void {
    this.calls.delete(call);
  }

  /** Calls being watched. */
  get size(): number {
    return this.calls.size;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.calls.clear();
  }

  private sweep(): void {
    const now = performance.now();
    for (const call of this.calls) {
      if (now < call.stallDeadline) continue;
      this.calls.delete(call);
      call.stalled(call.stallPhase === 'headers' ? new undiciErrors.HeadersTimeoutError() : new undiciErrors.BodyTimeoutError());
    }
  }
}
