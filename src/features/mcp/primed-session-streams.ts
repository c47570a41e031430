import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamStream } from './relay-event-stream.js';

/** Messages a primed stream holds for its client at most; later ones are dropped (and counted in the log). */
export const PRIMED_BUFFER_LIMIT = 256;

/** How long a primed stream waits for its client's `GET` on this replica before it is closed. */
export const PRIMED_ADOPT_MS = 3_000;

/** Longest wait for the upstream to connect a primed stream (the client's `notifications/initialized` waits for it). */
const PRIME_CONNECT_MS = 2_000;

/** The upstream session stream opened for a session before its client's `GET`, holding what arrives meanwhile. */
class PrimedStream implements UpstreamStream {
  private buffer: JSONRPCMessage[] = [];
  private sink: { onMessage(m: JSONRPCMessage): void; onEnd(): void } | undefined;
  private ended = false;
  /** Messages dropped because the buffer was full. */
  dropped = 0;

  constructor(
    stream: UpstreamStream,
    readonly abort: AbortController,
  ) {
    stream.pipe(
      (m) => {
        if (this.sink) this.sink.onMessage(m);
        else if (this.buffer.length < PRIMED_BUFFER_LIMIT) this.buffer.push(m);
        else this.dropped++;
      },
      () => {
        this.ended = true;
        this.sink?.onEnd();
      },
    );
  }

  pipe(onMessage: (m: JSONRPCMessage) => void, onEnd: () => void): void {
    const held = this.buffer;
    this.buffer = [];
    for (const m of held) onMessage(m);
    this.sink = { onMessage, onEnd };
    if (this.ended) onEnd();
  }
}

/**
 * A session's upstream stream (Streamable HTTP `GET`) opened by the gateway as soon as the session is
 * initialized, before the client's own `GET` arrives: an upstream sends its requests to the client
 * (sampling, elicitation) on that stream, and one sent before the stream was connected was lost (the
 * upstream had nowhere to send it). What arrives before the client's stream is connected is held, bounded,
 * and handed to it first. A stream the client does not take on this replica within `PRIMED_ADOPT_MS` is
 * closed (the client opens its own, on any replica).
 */
export class PrimedSessionStreams {
  private readonly primed = new Map<string, { stream: PrimedStream; timer: NodeJS.Timeout }>();

  constructor(private readonly onDropped: (sessionId: string, count: number) => void) {}

  /**
   * Opens the stream of `sessionId` with `open` (given the abort that ends it); an upstream that offers none (an HTTP
   * answer instead of a stream) or cannot be reached leaves nothing primed. Resolves once the stream is connected.
   */
  async prime(sessionId: string, open: (signal: AbortSignal) => Promise<UpstreamStream | Response>): Promise<void> {
    if (this.primed.has(sessionId)) return;
    const abort = new AbortController();
    const slow = setTimeout(() => abort.abort(), PRIME_CONNECT_MS).unref();
    let upstream: UpstreamStream | Response;
    try {
      upstream = await open(abort.signal);
    } catch {
      abort.abort();
      return;
    } finally {
      clearTimeout(slow);
    }
    if (upstream instanceof Response || abort.signal.aborted) {
      abort.abort();
      return;
    }
    const stream = new PrimedStream(upstream, abort);
    const timer = setTimeout(() => this.release(sessionId), PRIMED_ADOPT_MS).unref();
    this.release(sessionId);
    this.primed.set(sessionId, { stream, timer });
  }

  /** The primed stream of `sessionId`, handed over (its abort now the caller's to use), or undefined. */
  take(sessionId: string): { stream: UpstreamStream; abort: AbortController } | undefined {
    const entry = this.primed.get(sessionId);
    if (!entry) return undefined;
    this.primed.delete(sessionId);
    clearTimeout(entry.timer);
    return {
      stream: {
        pipe: (onMessage, onEnd) => {
          entry.stream.pipe(onMessage, onEnd);
          if (entry.stream.dropped > 0) this.onDropped(sessionId, entry.stream.dropped);
        },
      },
      abort: entry.stream.abort,
    };
  }

  /** Closes the primed stream of `sessionId`, if any. */
  release(sessionId: string): void {
    const entry = this.primed.get(sessionId);
    if (!entry) return;
    this.primed.delete(sessionId);
    clearTimeout(entry.timer);
    entry.stream.abort.abort();
    if (entry.stream.dropped > 0) this.onDropped(sessionId, entry.stream.dropped);
  }

  /** Closes every primed stream (at shutdown). */
  releaseAll(): void {
    for (const id of [...this.primed.keys()]) this.release(id);
  }
}
