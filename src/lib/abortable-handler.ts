import { errors as undiciErrors } from 'undici';
import { LazyAbort, type AbortSource } from './lazy-abort.js';

/**
 * The abort wiring the HTTP client's own undici dispatch handlers share (a buffered body, a streamed
 * one), as undici's `request` wires a signal: listened to without creating an AbortSignal when it is a
 * `LazyAbort`; an abort before the connection aborts it in `onConnect`, one after it through undici's
 * abort function, which calls the handler's `onError`. `detach()` once the call ended.
 */
export abstract class AbortableHandler {
  protected reason: Error | null = null;
  protected abortFn: ((err: Error) => void) | null = null;
  private readonly onAbort: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;

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

  /** Stops listening to the signal. */
  protected detach(): void {
    if (this.unsubscribe) this.unsubscribe();
    else if (this.onAbort) (this.signal as AbortSignal).removeEventListener('abort', this.onAbort);
    this.unsubscribe = null;
  }
}

function abortReason(signal: AbortSource): Error {
  return (signal.reason as Error) ?? new undiciErrors.RequestAbortedError();
}
