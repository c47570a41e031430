import { SseDecoder, type SseEvent } from '../foundation/lib/sse.js';
import { FramesMentioning, mayHaveUsage } from '../infra/fast/sse-frames.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { toGatewayError } from '../foundation/errors/to-gateway-error.js';
import { isObject, tryParseJson } from '../foundation/lib/json.js';
import { UpstreamStreamError, streamFramingOf, type StreamFraming } from './stream-framing.js';
import { UsageFrameStripper } from './strip-usage-frames.js';

/** Watches a stream's chunks as they pass (usage accounting, cache fill, guardrails, logs). */
export interface StreamObserver {
  onChunk?(chunk: Record<string, unknown>): void;
  /**
   * `onChunk` only looks at chunks whose `usage` is an object: a passthrough stream then parses only
   * the frames whose text has `"usage"` followed by `{` (when no other observer needs every chunk). Such
   * an observer reads `usage` alone (or Anthropic's `message.usage`): OpenAI's usage-only chunk may be
   * handed as its `choices` and `usage` only (`UsageFrameStripper`).
   */
  usageOnly?: boolean;
  /**
   * `onChunk` only looks at the stream's first chunk, at chunks whose `usage` is an object and at chunks
   * holding one of these members with a value other than `null` (member names, e.g. `finish_reason`):
   * a passthrough stream then parses those frames alone (found as bytes), unless another observer needs
   * every chunk. Such an observer may also be handed other chunks, and the usage chunk as `usageOnly`
   * observers get it.
   */
  chunksWith?: readonly string[];
  /**
   * Called once the upstream finished cleanly, before the closing frame. Returning a GatewayError
   * replaces `[DONE]` with that error frame (an output guardrail that denies).
   */
  beforeEnd?(): Promise<GatewayError | void> | GatewayError | void;
  /** Called once at the end; `error` is set when the stream failed. */
  onEnd?(ok: boolean, error?: GatewayError): void;
}

/** A source item: raw SSE bytes already in the common schema (passthrough) or a mapped chunk object. */
export type StreamItem = Uint8Array | Record<string, unknown>;

/**
 * A streamed answer in the common schema. Iterating it yields SSE bytes: passthrough bytes unchanged,
 * mapped chunks serialised one by one, the closing frame (`[DONE]`) at the end, or one error frame when
 * the stream fails after its first byte, each in the endpoint's framing (see {@link StreamFraming}).
 */
export class StreamAnswer implements AsyncIterable<Uint8Array> {
  private readonly observers: StreamObserver[] = [];

  /**
   * @param source the upstream items; it must throw when the upstream fails or ends early.
   * @param includeUsage whether the client asked for the usage chunk (mapped streams drop it otherwise).
   * @param passthrough whether the source yields raw bytes that already end with their closing frame.
   * @param framing how items, the closing frame and an error are written (default: OpenAI `data:` frames and `[DONE]`).
   * @param stripUsageFrames passthrough bytes carry a usage chunk the gateway asked for and the client did
   *   not: observers see it, the client's bytes go without it.
   */
  constructor(
    private readonly source: AsyncIterable<StreamItem>,
    private readonly includeUsage: boolean,
    readonly passthrough: boolean,
    private readonly framing: StreamFraming = streamFramingOf('chat'),
    private readonly stripUsageFrames = false,
  ) {}

  observe(o: StreamObserver): void {
    this.observers.push(o);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const parseAll = this.observers.some((o) => o.onChunk && !o.usageOnly && !o.chunksWith);
    const observed = this.passthrough && this.observers.some((o) => o.onChunk);
    // Observers of `usage` only: just the frames whose bytes mention "usage" are decoded (most chunks are not);
    // when the usage frame is also stripped, the stripper decodes those frames for both. Observers of a few
    // members: the first frame and the frames mentioning `usage` or those members are decoded (the stripper
    // then only judges the usage frame, so that no chunk is told twice).
    const members = parseAll ? undefined : chunksWithOf(this.observers);
    const stripper =
      this.passthrough && this.stripUsageFrames && !this.includeUsage
        ? new UsageFrameStripper(observed && !parseAll && !members ? (chunk) => this.tell(chunk) : undefined)
        : undefined;
    const decoder = observed
      ? parseAll
        ? new SseDecoder()
        : members
          ? new FramesMentioning(members, true, true)
          : stripper
            ? undefined
            : new FramesMentioning('"usage"', true)
      : undefined;
    const holdDone = this.passthrough && this.framing.done !== null && this.observers.some((o) => o.beforeEnd);
    let failure: GatewayError | undefined;
    let ended = false;
    const end = (ok: boolean, error?: GatewayError) => {
      ended = true;
      for (const o of this.observers) o.onEnd?.(ok, error);
    };
    try {
      try {
        for await (const raw of this.source) {
          let item = raw;
          if (item instanceof Uint8Array) {
            if (decoder) this.notify(decoder.push(item), parseAll || members !== undefined);
            if (stripper) {
              item = stripper.push(item);
              if (item.length === 0) continue;
            }
            if (holdDone) {
              const text = Buffer.from(item).toString('utf8');
              const cut = text.indexOf('data: [DONE]');
              if (cut >= 0) {
                if (cut > 0) yield Buffer.from(text.slice(0, cut));
                continue;
              }
            }
            yield item;
          } else {
            for (const o of this.observers) o.onChunk?.(item);
            if (!this.includeUsage && isUsageOnly(item)) continue;
            yield this.framing.frame(item);
          }
        }
        const rest = stripper?.end();
        if (rest?.length) yield rest;
        for (const o of this.observers) {
          const denial = await o.beforeEnd?.();
          if (denial) {
            failure = denial;
            break;
          }
        }
        if (!failure && (!this.passthrough || holdDone) && this.framing.done) yield this.framing.done;
      } catch (err) {
        failure = toGatewayError(err);
      }
      if (failure) {
        // An upstream's own error frame has reached the client already: a second would be read as another failure.
        if (!(failure instanceof UpstreamStreamError)) yield this.framing.error(failure);
        end(false, failure);
        return;
      }
      end(true);
    } finally {
      // The consumer stopped early (the client went away): observers still hear how the stream ended.
      if (!ended) end(false, failure?.code === 'client_closed_request' ? failure : new GatewayError('client_closed_request'));
    }
  }

  /** Tells the observers the decoded chunks; `any`: every chunk decoded is wanted, else only those with a `usage` object. */
  private notify(events: SseEvent[], any: boolean): void {
    for (const ev of events) {
      if (ev.data === '[DONE]') continue;
      if (!any && !mayHaveUsage(ev.data)) continue;
      const value = tryParseJson(ev.data);
      if (isObject(value)) this.tell(value);
    }
  }

  private tell(chunk: Record<string, unknown>): void {
    for (const o of this.observers) o.onChunk?.(chunk);
  }
}

function isUsageOnly(chunk: Record<string, unknown>): boolean {
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage !== undefined && chunk.usage !== null;
}

/** The quoted member names the `chunksWith` observers look for, `"usage"` first; undefined when there are none. */
function chunksWithOf(observers: readonly StreamObserver[]): string[] | undefined {
  let names: string[] | undefined;
  for (const o of observers) {
    if (!o.onChunk || !o.chunksWith) continue;
    names ??= ['"usage"'];
    for (const m of o.chunksWith) if (!names.includes(`"${m}"`)) names.push(`"${m}"`);
  }
  return names;
}
