import { errors as undiciErrors } from 'undici';
import { LazyAbort, type AbortSource } from './lazy-abort.js';

/** Which wait of a call its timer watches. */
const enum Waiting {
  Nothing,
  Headers,
  Body,
}

/**
 * The abort wiring the HTTP client's own undici dispatch handlers share (a buffered body, a streamed
 * one), as undici's `request` wires a signal: listened to without creating an AbortSignal when it is a
 * `LazyAbort`; an abort before the connection aborts it in `onConnect`, one after it through undici's
 * abort function, which calls the handler's `onError`. `detach()` once the call ended.
 *
 * It also times the call out (`timeOut`), as undici's headers and body timeouts do, on one Node.js timer
 * of its own. undici puts a timeout over a second in its own timer wheel, which drops a cleared timer only
 * at its next tick (every ~half second): at thousands of calls a second each call's timer outlived the
 * young generation, and the old generation grew by them (bench/README.md "Session 21"). A Node.js timer
 * leaves its list the moment it is cleared.
 */
export abstract class AbortableHandler {
  protected reason: Error | null = null;
  protected abortFn: ((err: Error) => void) | null = null;
  private readonly onAbort: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private headersTimeoutMs = 0;
  private bodyTimeoutMs = 0;
  private waiting = Waiting.Nothing;
  /** `performance.now()` past which the call has stalled. */
  private deadline = 0;
  /** When the timer fires (it is re-armed then if the deadline moved later meanwhile). */
  private firesAt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly signal: AbortSource | undefined) {
    if (signal?.aborted) this.reason = abortReason(signal);
    else if (signal) {
      this.onAbort = () => this.abortWith(abortReason(signal));
      if (signal instanceof LazyAbort) this.unsubscribe = signal.onAbort(this.onAbort);
      else signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onConnect(abort: (err: Error) => void): void {
    if (this.reason) {
      abort(this.reason);
      return;
    }
    this.abortFn = abort;
    // undici calls onConnect as it writes the request: the headers timeout runs from here, as undici's does
    // (not while the call waits for a connection).
    if (this.headersTimeoutMs > 0 && this.waiting === Waiting.Nothing) {
      const now = performance.now();
      this.waiting = Waiting.Headers;
      this.deadline = now + this.headersTimeoutMs;
      this.arm(now, this.headersTimeoutMs);
    }
  }

  /**
   * Times the call out as undici would with these timeouts (0: none), which the caller then passes to undici
   * as 0: the headers within `headersTimeoutMs` of the request being written, then at most `bodyTimeoutMs`
   * between two body chunks, not counting the time the reader holds the socket paused. A call timed out
   * fails with undici's own `HeadersTimeoutError` or `BodyTimeoutError`.
   */
  timeOut(headersTimeoutMs: number, bodyTimeoutMs: number): void {
    this.headersTimeoutMs = headersTimeoutMs;
    this.bodyTimeoutMs = bodyTimeoutMs;
  }

  /** The headers or a body chunk arrived, or a paused reader resumed: the body timeout starts again (subclasses call it). */
  protected heard(): void {
    if (this.bodyTimeoutMs === 0) {
      if (this.waiting === Waiting.Headers) this.stopTimer();
      return;
    }
    const now = performance.now();
    this.waiting = Waiting.Body;
    this.deadline = now + this.bodyTimeoutMs;
    // The deadline only moves later while the timer runs (it is re-armed when it fires), unless the body
    // timeout is shorter than what was left of the headers timeout.
    if (this.timer === null || this.deadline < this.firesAt) this.arm(now, this.bodyTimeoutMs);
  }

  /** Whether the reader holds the socket paused (no body timeout meanwhile, as in undici). */
  protected pausedByReader(): boolean {
    return false;
  }

  /** (Re)starts the timer to fire `ms` after `now` (the caller's own reading of the clock). */
  private arm(now: number, ms: number): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.firesAt = now + ms;
    this.timer = setTimeout(fire, ms, this);
  }

  /** The timer fired: the call stalled, or heard something since and gets the rest of its time. */
  onTimer(): void {
    this.timer = null;
    if (this.waiting === Waiting.Nothing) return;
    const now = performance.now();
    if (this.waiting === Waiting.Body && this.pausedByReader()) {
      this.deadline = now + this.bodyTimeoutMs;
      this.arm(now, this.bodyTimeoutMs);
      return;
    }
    if (now < this.deadline) {
      this.arm(now, this.deadline - now);
      return;
    }
    const stalled = this.waiting === Waiting.Headers ? new undiciErrors.HeadersTimeoutError() : new undiciErrors.BodyTimeoutError();
    this.waiting = Waiting.Nothing;
    this.abortWith(stalled);
  }

  private stopTimer(): void {
    this.waiting = Waiting.Nothing;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /** Aborts the call with `reason` (not connected yet: `onConnect` will). */
  protected abortWith(reason: Error): void {
    this.reason = reason;
    this.abortFn?.(reason);
  }

  /** Stops listening to the signal, and the timeouts (a reader that resumes after the end arms none). */
  protected detach(): void {
    this.headersTimeoutMs = this.bodyTimeoutMs = 0;
    if (this.waiting !== Waiting.Nothing) this.stopTimer();
    if (this.unsubscribe) this.unsubscribe();
    else if (this.onAbort) (this.signal as AbortSignal).removeEventListener('abort', this.onAbort);
    this.unsubscribe = null;
  }
}

function fire(handler: AbortableHandler): void {
  handler.onTimer();
}

function abortReason(signal: AbortSource): Error {
  return (signal.reason as Error) ?? new undiciErrors.RequestAbortedError();
}
