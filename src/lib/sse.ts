import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One server-sent event as parsed from a byte stream. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** The frame that ends every gateway stream (decisions.md, "Streaming"). */
export const SSE_DONE = Buffer.from('data: [DONE]\n\n');

/**
 * Incremental SSE parser over bytes: feed any split of the upstream body, get whole events.
 * The project's only SSE parser (eventsource-parser under it).
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private pending: SseEvent[] = [];
  private readonly parser = createParser({
    onEvent: (msg: EventSourceMessage) => {
      this.pending.push({ event: msg.event, data: msg.data, id: msg.id });
    },
  });

  /** Feeds bytes (or text) and returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[] {
    this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
    return this.drain();
  }

  /** Flushes a last event that was not followed by a blank line. */
  end(): SseEvent[] {
    const tail = this.decoder.decode();
    if (tail) this.parser.feed(tail);
    this.parser.feed('\n\n');
    return this.drain();
  }

  private drain(): SseEvent[] {
    if (this.pending.length === 0) return EMPTY;
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

const EMPTY: SseEvent[] = [];

/** Serialises one JSON value as a `data:` frame. */
export function sseData(value: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
}

/** Serialises a named event (the Responses API and Anthropic-style streams use `event:` lines). */
export function sseEvent(event: string, value: unknown): Buffer {
  return Buffer.from(`event: ${event}\ndata: ${JSON.stringify(value)}\n\n`);
}
