import { SseDecoder, type SseEvent } from '../../foundation/lib/sse.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { StreamMapper } from '../provider.js';

/** How one OpenAI-style JSON event stream marks errors and its end. */
export interface JsonSseRules {
  /** The error object a parsed frame carries, if it is an error frame. */
  errorOf(value: Record<string, unknown>): Record<string, unknown> | undefined;
  /** Whether a parsed frame ends the stream (besides `data: [DONE]`). */
  isTerminal?(value: Record<string, unknown>): boolean;
  /** Whether a parsed frame is passed on (default: every non-error frame). */
  keep?(value: Record<string, unknown>): boolean;
}

/**
 * Parses a stream of JSON `data:` frames into objects. An error frame becomes a GatewayError (502 with
 * the provider's message, type and code); a stream that ends without `[DONE]` or a terminal frame
 * throws too (an upstream that died mid-stream).
 */
export function createJsonSseMapper<T>(provider: string, rules: JsonSseRules): StreamMapper<T> {
  const sse = new SseDecoder();
  let done = false;
  const handle = (events: SseEvent[]): T[] => {
    const out: T[] = [];
    for (const ev of events) {
      if (ev.data === '[DONE]') {
        done = true;
        continue;
      }
      const value = tryParseJson(ev.data);
      if (!isObject(value)) continue;
      const err = rules.errorOf(value);
      if (err) {
        throw new GatewayError(
          'provider_error',
          typeof err.message === 'string' ? err.message : 'The provider reported an error mid-stream.',
          {
            provider,
            status: 502,
            type: typeof err.type === 'string' && err.type !== 'error' ? err.type : 'server_error',
            publicCode: typeof err.code === 'string' ? err.code : null,
            param: typeof err.param === 'string' ? err.param : null,
          },
        );
      }
      if (rules.keep && !rules.keep(value)) continue;
      if (rules.isTerminal?.(value)) done = true;
      out.push(value as T);
    }
    return out;
  };
  return {
    push: (bytes) => handle(sse.push(bytes)),
    end: () => {
      const out = handle(sse.end());
      if (!done)
        throw new GatewayError('provider_error', 'The provider closed the stream before it was complete.', { provider, status: 502 });
      return out;
    },
  };
}
