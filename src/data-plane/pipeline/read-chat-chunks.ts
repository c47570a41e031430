import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { Usage } from '../../foundation/spec/chat.js';
import type { GatewayDeps } from './deps.js';
import { recordCompletion } from './record-completion.js';
import type { RoutedRequest } from './route-through-gateway.js';

/** A routed chat stream read as its chunk objects, for routes that answer in another stream format. */
export interface ChatChunkReader {
  /** The chunks, batch by batch as the upstream delivers them; the chat stream's own bytes are not sent. */
  batches(): AsyncGenerator<Record<string, unknown>[]>;
  /** Why the stream failed, once it has ended; undefined while it goes on or when it ended well. */
  readonly failure: GatewayError | undefined;
  /** Accounts for the request (metrics, log row) once: the first call wins. */
  account(status: number, error?: GatewayError): void;
}

/**
 * Reads the stream of a request routed as `chat` (Responses and Messages over chat): every chunk the
 * stream's observer sees, its usage, and how it ended. The caller turns chunks into its own events,
 * accounts with the final status, and accounts a client that left with `account(499, …)` in a
 * `finally` (a no-op after the first call).
 */
export function readChatChunks(deps: GatewayDeps, routed: RoutedRequest): ChatChunkReader {
  const { outcome, trace, dp } = routed;
  const stream = outcome.stream!;
  const pending: Record<string, unknown>[] = [];
  let usage: Usage | undefined;
  let failure: GatewayError | undefined;
  let accounted = false;
  stream.observe({
    onChunk: (c) => {
      pending.push(c);
      if (isObject(c.usage)) usage = c.usage as unknown as Usage;
    },
    onEnd: (ok, error) => {
      if (!ok) failure = error ?? new GatewayError('provider_error', 'The stream failed.', { status: 502 });
    },
  });
  return {
    async *batches() {
      for await (const _bytes of stream) if (pending.length) yield pending.splice(0);
      if (pending.length) yield pending.splice(0);
    },
    get failure() {
      return failure;
    },
    account(status, error) {
      if (accounted) return;
      accounted = true;
      recordCompletion(deps, dp, { status, outcome, error, trace, usage, latencyMs: Date.now() - dp.ctx.startedAt });
    },
  };
}
