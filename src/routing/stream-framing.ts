import { SSE_DONE, sseData, sseEvent } from '../lib/sse.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { ProviderEndpointKind } from '../providers/provider.js';

/**
 * How a streamed answer is framed on the wire for one endpoint kind: OpenAI-style `data:` frames
 * closed by `data: [DONE]`, or the Messages API's named events (`event: <type>`), which end with
 * `message_stop` and report a failure as an `error` event.
 */
export interface StreamFraming {
  /** Serialises one mapped item (a chunk or an event object). */
  frame(item: Record<string, unknown>): Uint8Array;
  /** The closing frame the gateway adds after a mapped stream; null when the last event closes the stream itself. */
  readonly done: Uint8Array | null;
  /** The frame that reports a failure after the first byte. */
  error(err: GatewayError): Uint8Array;
  /** Whether the last bytes (up to 32) of a passed-through stream show that it completed. */
  complete(tail: string): boolean;
}

const OPENAI_FRAMING: StreamFraming = {
  frame: sseData,
  done: SSE_DONE,
  error: (err) => sseData(err.toBody()),
  complete: (tail) => tail.includes('[DONE]'),
};

/**
 * The Messages API's framing: `event: <type>` + `data: <json>`, no `[DONE]`; an error is
 * `event: error` with `{"type": "error", "error": {…}}` (the gateway's error fields), as Anthropic clients read it.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#error-events
 */
const MESSAGES_FRAMING: StreamFraming = {
  frame: (item) => sseEvent(typeof item.type === 'string' ? item.type : 'message', item),
  done: null,
  error: (err) => sseEvent('error', { type: 'error', error: err.toBody().error }),
  complete: (tail) => tail.includes('message_stop'),
};

/** The framing of a stream answering `endpoint`. */
export function streamFramingOf(endpoint: ProviderEndpointKind): StreamFraming {
  return endpoint === 'messages' ? MESSAGES_FRAMING : OPENAI_FRAMING;
}
