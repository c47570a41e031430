/**
 * A client-abort switch that creates its `AbortSignal` only when something asks for one. Most
 * requests never do: the hot path checks `aborted` and registers plain callbacks with `onAbort`
 * (an AbortController with an event listener costs several microseconds per request).
 */
export class LazyAbort {
  aborted = false;
  reason: unknown = undefined;
  private controller?: AbortController;
  private listeners?: Array<() => void>;

  /** A real signal, aborted together with this switch (created on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const fn of listeners) fn();
  }

  /** Calls `fn` once when aborted (never if it already was); returns the function that unregisters it. */
  onAbort(fn: () => void): () => void {
    (this.listeners ??= []).push(fn);
    return () => this.removeListener('abort', fn);
  }

  /*
   * The `abort` event as an EventEmitter has it: undici's `request` takes an EventEmitter as its
   * `signal` (it reads `aborted` and `reason`, and listens with `once('abort')`), so a streamed upstream
   * call is given the switch itself instead of a real AbortSignal (creating one costs ~16k instructions
   * per request in Node 20: its prototype is set after construction; bench/README.md). Abort happens
   * once, so `on` and `once` are the same.
   */
  on(event: 'abort', fn: () => void): this {
    if (event === 'abort') (this.listeners ??= []).push(fn);
    return this;
  }

  once(event: 'abort', fn: () => void): this {
    return this.on(event, fn);
  }

  removeListener(event: 'abort', fn: () => void): this {
    const list = this.listeners;
    const i = event === 'abort' && list ? list.indexOf(fn) : -1;
    if (i >= 0) list!.splice(i, 1);
    return this;
  }
}

/** An abort source the data plane accepts: a real signal or a lazy switch. */
export type AbortSource = AbortSignal | LazyAbort;

/** The real signal of an abort source (created on demand for a lazy one). */
export function signalOf(source: AbortSource): AbortSignal {
  return source instanceof LazyAbort ? source.signal : source;
}
