import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function str(value: string) {
  return { type: 'string' as const, value };
}

/**
 * One binary event-stream event frame as Bedrock sends it: `:event-type`, `:content-type`
 * application/json, `:message-type` event, and a JSON payload (with the `p` padding field Bedrock adds).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
export function encodeEvent(eventType: string, payload: Record<string, unknown>): Uint8Array {
  const body = JSON.stringify({
    ...payload,
    p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0'.slice(0, 5 + (eventType.length % 20)),
  });
  return codec.encode({
    headers: { ':event-type': str(eventType), ':content-type': str('application/json'), ':message-type': str('event') },
    body: fromUtf8(body),
  });
}

/** An exception frame (`:message-type exception`, `:exception-type` e.g. `throttlingException`, body `{"message": …}`). */
export function encodeException(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ':exception-type': str(exceptionType), ':content-type': str('application/json'), ':message-type': str('exception') },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/**
 * A `chunk` event of InvokeModelWithResponseStream: payload `{"bytes": <base64 of the model's event>}`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html
 */
export function encodeChunk(bytes: Uint8Array): Uint8Array {
  return codec.encode({
    headers: { ':event-type': str('chunk'), ':content-type': str('application/json'), ':message-type': str('event') },
    body: fromUtf8(JSON.stringify({ bytes: Buffer.from(bytes).toString('base64'), p: 'abcdefghij' })),
  });
}
