import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { bedrockSdk } from './bedrock-sdk.js';

/** One decoded event-stream message: its string headers and its payload as text. */
export interface EventStreamMessage {
  headers: Record<string, string>;
  body: string;
}

/**
 * Incremental decoder of the binary `application/vnd.amazon.eventstream` framing (a 4-byte total
 * length, a 4-byte headers length, a prelude CRC, headers, payload, a message CRC). Feed any split
 * of the body; whole messages come out. A corrupt frame is a 502 provider error.
 * @see https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html
 */
export class EventStreamDecoder {
  private readonly codec = newCodec();
  private buffer: Uint8Array = new Uint8Array(0);

  constructor(private readonly provider: string) {}

  /** Feeds bytes; returns the messages they complete. */
  push(bytes: Uint8Array): EventStreamMessage[] {
    this.buffer = this.buffer.length ? concat(this.buffer, bytes) : bytes;
    const out: EventStreamMessage[] = [];
    while (this.buffer.length >= 4) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
      const total = view.getUint32(0, false);
      if (total < 16) throw this.corrupt(`frame length ${total}`);
      if (this.buffer.length < total) break;
      const frame = this.buffer.slice(0, total);
      this.buffer = this.buffer.subarray(total);
      out.push(this.decode(frame));
    }
    return out;
  }

  /** Bytes received but not yet part of a whole message. */
  get pendingBytes(): number {
    return this.buffer.length;
  }

  private decode(frame: Uint8Array): EventStreamMessage {
    let message;
    try {
      message = this.codec.decode(frame);
    } catch (err) {
      throw this.corrupt(err instanceof Error ? err.message : String(err));
    }
    const headers: Record<string, string> = {};
    for (const [name, h] of Object.entries(message.headers)) headers[name] = String(h.value);
    return { headers, body: bedrockSdk().toUtf8(message.body) };
  }

  private corrupt(detail: string): GatewayError {
    return new GatewayError('provider_error', `The provider sent a malformed event-stream frame: ${detail}`, {
      provider: this.provider,
      status: 502,
    });
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** A codec from the AWS libraries, which the request that opened the stream has loaded. */
function newCodec() {
  const { EventStreamCodec, toUtf8, fromUtf8 } = bedrockSdk();
  return new EventStreamCodec(toUtf8, fromUtf8);
}
