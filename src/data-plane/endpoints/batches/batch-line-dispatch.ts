import type { LeafCall, LeafInterceptor } from '../../../routing/execute.js';
import type { Outcome } from '../../../routing/outcome.js';

/** `locals` key under which a batch line's run leaves its {@link BatchLineDispatch}. */
const KEY = 'batchLine';

/** Header every provider call of a batch line carries; providers that honour it run the request once. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * How a batch line is handed to the provider: the `Idempotency-Key` its calls carry (the same on a
 * re-send after a crash) and `dispatch`, which durably records the send before it happens (resolving
 * once per line run, however many targets a fallback tries) and rejects when the line must not be sent.
 */
export interface BatchLineDispatch {
  idempotencyKey: string;
  dispatch(): Promise<void>;
}

/** The `Idempotency-Key` of a batch line: its batch id and input line number, stable across restarts. */
export function batchLineIdempotencyKey(batchId: string, lineNo: number): string {
  return `${batchId}:${lineNo}`;
}

/** Data-plane `locals` carrying a batch line's dispatch for {@link batchLineInterceptor}. */
export function batchLineLocals(line: BatchLineDispatch): Record<string, unknown> {
  return { batch: true, [KEY]: line };
}

/**
 * The batches capability's leaf interceptor (innermost: after the cache, so a cache hit sends nothing):
 * for a batch line, waits for the dispatch record to be committed, then adds the line's
 * `Idempotency-Key` to the target's outgoing headers (whatever `forward_headers` says). Other requests
 * pass through untouched.
 */
export function batchLineInterceptor(): LeafInterceptor {
  // Requests that are not batch lines go straight through, without an async frame of ours.
  return (call, next) => {
    const line = call.input.locals?.[KEY] as BatchLineDispatch | undefined;
    return line ? dispatchLine(line, call, next) : next();
  };
}

async function dispatchLine(line: BatchLineDispatch, call: LeafCall, next: () => Promise<Outcome>): Promise<Outcome> {
  await line.dispatch();
  call.target = { ...call.target, forwardHeaders: { ...call.target.forwardHeaders, [IDEMPOTENCY_HEADER]: line.idempotencyKey } };
  return next();
}
