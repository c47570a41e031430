import { GatewayError } from '../foundation/errors/gateway-error.js';
import type { StreamMapper } from '../providers/provider.js';
import { pickCommonFields } from '../foundation/spec/pick-common-fields.js';
import type { StreamItem } from './stream-answer.js';
import type { StreamFraming } from './stream-framing.js';

/** What a stream's failures are told apart by: the call's abort signal and the provider's name. */
export interface StreamGuard {
  signal: { aborted: boolean; reason: unknown };
  provider: string;
}

/**
 * A failure while reading a stream as a catalogue error: a timeout (408), the client gone (499) or an
 * upstream that died (502). Each stream source below catches its own failures with it: a generator
 * wrapping the source only for that cost an async-generator step per chunk.
 */
export function streamFailure(err: unknown, { signal, provider }: StreamGuard): GatewayError {
  if (err instanceof GatewayError) return err;
  if (signal.aborted && signal.reason instanceof Error && signal.reason.message === 'request timeout') {
    return new GatewayError('request_timeout', 'The answer did not complete within the request timeout.', { provider });
  }
  if (signal.aborted) return new GatewayError('client_closed_request', undefined, { provider });
  return new GatewayError('provider_error', `The provider's stream broke off: ${(err as Error).message ?? 'connection lost'}`, {
    provider,
    status: 502,
  });
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * A passthrough stream's items: the upstream bytes as they come, their failures as catalogue errors,
 * and at the end a check that the stream was complete (its framing's closing frame among its last
 * `tailBytes` bytes); one that ended on its own error frame fails with that error, which the client has read.
 * A plain iterator rather than an async generator: one `then` per chunk instead of a generator step and an await.
 */
export class RawItems implements AsyncIterator<StreamItem> {
  /** The last chunks, as few as cover `tailBytes` (chunks are not reused: holding them is safe), decoded once at the end. */
  private readonly tail: ByteTail;

  constructor(
    private readonly body: AsyncIterator<Uint8Array>,
    private readonly framing: StreamFraming,
    private readonly guard: StreamGuard,
  ) {
    this.tail = new ByteTail(framing.tailBytes);
  }

  next(): Promise<IteratorResult<StreamItem>> {
    return this.body.next().then(this.step, this.fail);
  }

  return(): Promise<IteratorResult<StreamItem>> {
    return this.body.return?.() ?? Promise.resolve(DONE);
  }

  private readonly step = (r: IteratorResult<Uint8Array>): IteratorResult<StreamItem> => {
    if (r.done !== true) {
      this.tail.push(r.value);
      return r;
    }
    const tail = this.tail.text();
    if (!this.framing.complete(tail))
      throw (
        this.framing.upstreamError(tail) ??
        new GatewayError('provider_error', 'The provider closed the stream before it was complete.', { status: 502 })
      );
    return r;
  };

  private readonly fail = (err: unknown): never => {
    throw streamFailure(err, this.guard);
  };
}

/** The last `n` bytes of a byte stream, kept as references to the fewest last chunks that hold them. */
export class ByteTail {
  private chunks: Uint8Array[] = [];
  private length = 0;

  constructor(private readonly n: number) {}

  push(chunk: Uint8Array): void {
    const chunks = this.chunks;
    if (chunk.length >= this.n) {
      if (chunks.length === 1) chunks[0] = chunk;
      else this.chunks = [chunk];
      this.length = chunk.length;
      return;
    }
    chunks.push(chunk);
    this.length += chunk.length;
    while (this.length - chunks[0]!.length >= this.n) this.length -= chunks.shift()!.length;
  }

  /** The last `n` bytes (fewer when the stream was shorter), as Latin-1 text. */
  text(): string {
    const chunks = this.chunks;
    const all =
      chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.length) : Buffer.concat(chunks, this.length);
    return all.subarray(Math.max(0, all.length - this.n)).toString('latin1');
  }
}

/** Upstream bytes re-framed by the provider's transcoder; its `end()` checks the stream completed. */
export async function* transcodedItems(
  body: AsyncIterable<Uint8Array>,
  transcoder: StreamMapper<Uint8Array>,
  guard: StreamGuard,
): AsyncGenerator<StreamItem> {
  try {
    for await (const chunk of body) yield* transcoder.push(chunk);
    yield* transcoder.end();
  } catch (err) {
    throw streamFailure(err, guard);
  }
}

/** Upstream chunks mapped to the common schema by the provider's mapper (`strictEndpoint`: only that endpoint's common fields kept). */
export async function* mappedItems(
  body: AsyncIterable<Uint8Array>,
  mapper: StreamMapper<unknown>,
  strictEndpoint: string | undefined,
  guard: StreamGuard,
): AsyncGenerator<StreamItem> {
  try {
    for await (const chunk of body) {
      for (const out of mapper.push(chunk)) yield prepare(out, strictEndpoint);
    }
    for (const out of mapper.end()) yield prepare(out, strictEndpoint);
  } catch (err) {
    throw streamFailure(err, guard);
  }
}

function prepare(chunk: unknown, strictEndpoint: string | undefined): Record<string, unknown> {
  const value = strictEndpoint !== undefined ? pickCommonFields(strictEndpoint, chunk) : chunk;
  return value as Record<string, unknown>;
}

/**
 * A stream source whose first item was already read (a stream resolves only once its first chunk
 * arrived, so one that stalls before it can still fall back): that item first, then the rest.
 */
export class FirstReplayed implements AsyncIterable<StreamItem>, AsyncIterator<StreamItem> {
  private first: IteratorResult<StreamItem> | null;

  constructor(
    private readonly rest: AsyncIterator<StreamItem>,
    first: IteratorResult<StreamItem>,
  ) {
    this.first = first;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamItem> {
    return this;
  }

  next(): Promise<IteratorResult<StreamItem>> {
    const first = this.first;
    if (first === null) return this.rest.next();
    this.first = null;
    return Promise.resolve(first);
  }

  return(): Promise<IteratorResult<StreamItem>> {
    return this.rest.return?.() ?? Promise.resolve(DONE);
  }
}
