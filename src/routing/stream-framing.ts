import { SSE_DONE, SseDecoder, sseData, sseEvent } from '../foundation/lib/sse.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { isObject, tryParseJson } from '../foundation/lib/json.js';
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
  /** How many of a passed-through stream's last bytes `complete` and `upstreamError` read. */
  readonly tailBytes: number;
  /** Whether the last bytes (`tailBytes`) of a passed-through stream show that it completed. */
  complete(tail: string): boolean;
  /**
   * The failure a passed-through stream that did not complete reported itself in this framing's own error
   * frame, as its last frame (the client has read it: the gateway adds none); undefined when it did not.
   */
  upstreamError(tail: string): UpstreamStreamError | undefined;
}

/** A failure the upstream reported inside a passed-through stream, in the framing the client reads. */
export class UpstreamStreamError extends GatewayError {}

const OPENAI_FRAMING: StreamFraming = {
  frame: sseData,
  done: SSE_DONE,
  error: (err) => sseData(err.toBody()),
  tailBytes: 32,
  complete: (tail) => tail.includes('[DONE]'),
  upstreamError: () => undefined,
};

/**
 * The last event of a Messages stream's tail when it is an `error` event, as the error it reports. The tail may
 * begin inside an earlier event; the project's SSE parser ignores such a partial first line. The error event's
 * name line must lie in the tail (an error whose data runs past `tailBytes` is not recognised, and the gateway's
 * own error frame follows it).
 */
function messagesError(tail: string): UpstreamStreamError | undefined {
  const decoder = new SseDecoder();
  const events = decoder.push(tail);
  const last = decoder.end().at(-1) ?? events.at(-1);
  if (last?.event !== 'error') return undefined;
  const parsed = tryParseJson(last.data);
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : undefined;
  const type = typeof error?.type === 'string' ? error.type : 'error';
  const message = typeof error?.message === 'string' ? error.message : 'no message';
  return new UpstreamStreamError('provider_error', `The provider ended its stream with an error event (${type}: ${message}).`, {
    status: 502,
  });
}

const MESSAGES_FRAMING: StreamFraming = {
  frame: (item) => sseEvent(typeof item.type === 'string' ? item.type : 'message', item),
  done: null,
  error: (err) => sseEvent('error', { type: 'error', error: err.toBody().error }),
  tailBytes: 1024,
  complete: (tail) => tail.includes('message_stop'),
  upstreamError: messagesError,
};

/** The framing of a stream answering `endpoint`. */
export function streamFramingOf(endpoint: ProviderEndpointKind): StreamFraming {
  return endpoint === 'messages' ? MESSAGES_FRAMING : OPENAI_FRAMING;
}
