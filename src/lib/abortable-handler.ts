import { errors as undiciErrors } from 'undici';
import { LazyAbort, type AbortSource } from './lazy-abort.js';
import type { StallWatch, StallWatched } from './stall-watch.js';

/**
 * The abort wiring the HTTP client's own undici dispatch handlers share (a buffered body, a streamed
 * one), as undici's `request` wires a signal: listened to without creating an AbortSignal when it is a
 * `LazyAbort`; an abort before the connection aborts it in `onConnect`, one after it through undici's
 * abort function, which calls the handler's `onError`. `detach()` once the call ended.
 */
export abstract class AbortableHandler implements StallWatched {
  protected reason: Error | null = null;
  protected abortFn: ((err: Error) => void) | null = null;
  private readonly onAbort: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  /** The watch of this call's timeouts when undici's timers do not watch it (`watchStalls`). */
  private stallWatch: StallWatch | null = null;
  private bodyTimeoutMs = 0;
  stallDeadline = 0;
  stallPhase: 'headers' | 'body' = 'headers';

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
  }

  /** Aborts the call with `reason` (not connected yet: `onConnect` will). */
  protected abortWith(reason: Error): void {
    this.reason = reason;
    this.abortFn?.(reason);
  }

  /** Has `watch` time this call out: its headers within `headersTimeoutMs`, then at most `bodyTimeoutMs` between body chunks. */
  watchStalls(watch: StallWatch, headersTimeoutMs: number, bodyTimeoutMs: number): void {
    this.stallWatch = watch;
    this.bodyTimeoutMs = bodyTimeoutMs;
    this.stallDeadline = performance.now() + headersTimeoutMs;
    watch.add(this);
  }

  /** The headers or a body chunk arrived: the call has `bodyTimeoutMs` for the next chunk (subclasses call it). */
  protected heard(): void {
    if (this.stallWatch === null) return;
    this.stallPhase = 'body';
    this.stallDeadline = performance.now() + this.bodyTimeoutMs;
  }

  stalled(err: Error): void {
    this.abortWith(err);
  }

  /** Stops listening to the signal (and the stall watch). */
  protected detach(): void {
    if (this.stallWatch) {
      this.stallWatch.delete(this);
      this.stallWatch = null;
    }
    if (this.unsubscribe) this.unsubscribe();
    else if (this.onAbort) (this.signal as AbortSignal).removeEventListener('abort', this.onAbort);
    this.unsubscribe = null;
  }
}

function abortReason(signal: AbortSource): Error {
  return (signal.reason as Error) ?? new undiciErrors.RequestAbortedError();
}
