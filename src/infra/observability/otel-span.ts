import {
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type AttributeValue,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanStatus,
} from '@opentelemetry/api';
import { hrTime, hrTimeDuration, isAttributeValue, type InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { randomHex } from '../../foundation/lib/ids.js';
import type { GatewaySpan, SpanAttributes, SpanAttributeValue } from './tracing.js';

/** What every span of one tracer shares: where it ends up, what it describes, its limits. */
export interface SpanSink {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  /** Takes each span as it ends (the SDK's `BatchSpanProcessor`: queued, batched, exported). */
  readonly processor: Pick<SpanProcessor, 'onEnd'>;
  readonly captureContent: boolean;
  /** Attributes a span keeps at most (`OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT`, default 128); later new names are dropped and counted. */
  readonly attributeCountLimit: number;
  /** Longest string value kept, in characters (`OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, default unlimited); longer ones are cut. */
  readonly attributeValueLengthLimit: number;
}

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT } as const;
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const ERROR: SpanStatus = Object.freeze({ code: SpanStatusCode.ERROR });
const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];

/**
 * A recorded span of the gateway: the `GatewaySpan` the request path writes to and, once ended, the
 * `ReadableSpan` the SDK's batch processor and exporters read (the protobuf encoder and the JSON exporter alike).
 *
 * Why not the SDK's own span: per span it generated ids through `Math.random`, checked the parent's ids with
 * regular expressions, asked the sampler, read the clock twice, copied and checked the attributes and built a
 * context object per child, about 50,000 instructions per request of three spans (callgrind, bench/README.md).
 * Here a span is one object: ids from the pooled secure random bytes, the sampling decision taken once per
 * request (its SERVER span) and inherited by the children, start and end as `performance.now()` readings turned
 * into `HrTime` only when the span is exported. Attributes are checked as the SDK checks them (`isAttributeValue`,
 * the count and length limits); the gateway's spans have no events and no links.
 */
export class OtelSpan implements GatewaySpan, ReadableSpan {
  /** The attributes' names in the order first set, and their values (the encoder reads these two; see `attributes`). */
  readonly attributeKeys: string[] = [];
  readonly attributeValues: AttributeValue[] = [];
  droppedAttributesCount = 0;
  status: SpanStatus = UNSET;
  ended = false;
  readonly links = NO_LINKS;
  readonly events = NO_EVENTS;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  /** `performance.now()` when the span started (the encoder writes it on the epoch clock without making an `HrTime`). */
  readonly startAt = performance.now();
  /** `performance.now()` when the span ended; its start while it is open (exporters read ended spans only). */
  endAt = this.startAt;

  constructor(
    private readonly sink: SpanSink,
    readonly name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
  ) {}

  spanContext(): SpanContext {
    return this.context;
  }

  get traceId(): string {
    return this.context.traceId;
  }

  get captureContent(): boolean {
    return this.sink.captureContent;
  }

  /**
   * The attributes as one object (what the SDK's JSON exporter reads). Kept as two arrays rather than an object:
   * written by name, an object of a dozen dotted names is a megamorphic keyed store per attribute and a for-in
   * with a keyed load per name when encoded.
   */
  get attributes(): Attributes {
    const out: Attributes = {};
    for (let i = 0; i < this.attributeKeys.length; i++) out[this.attributeKeys[i]!] = this.attributeValues[i];
    return out;
  }

  get resource(): Resource {
    return this.sink.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.sink.scope;
  }

  get startTime(): HrTime {
    return hrTime(this.startAt);
  }

  /** The end time (the start time while the span is open: exporters only read ended spans). */
  get endTime(): HrTime {
    return hrTime(this.endAt);
  }

  get duration(): HrTime {
    return hrTimeDuration(this.startTime, this.endTime);
  }

  child(name: string, kind: 'internal' | 'client', attributes?: SpanAttributes): GatewaySpan {
    const c = this.context;
    const span = new OtelSpan(
      this.sink,
      name,
      KINDS[kind],
      { traceId: c.traceId, spanId: randomHex(8), traceFlags: c.traceFlags, traceState: c.traceState },
      c,
    );
    if (attributes) span.set(attributes);
    return span;
  }

  set(attributes: SpanAttributes): void {
    if (this.ended) return;
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) this.put(key, value);
    }
  }

  fail(code: string, message?: string): void {
    if (this.ended) return;
    this.put('error.type', code);
    this.status = message ? { code: SpanStatusCode.ERROR, message } : ERROR;
  }

  end(): void {
    if (this.ended) return;
    this.endAt = performance.now();
    this.ended = true;
    this.sink.processor.onEnd(this);
  }

  /** Stores one attribute as the SDK's span does: a valid value only, within the count limit, strings cut to the length limit. */
  private put(key: string, value: SpanAttributeValue): void {
    const t = typeof value;
    if (key.length === 0 || (t !== 'string' && t !== 'number' && t !== 'boolean' && !isAttributeValue(value))) return;
    const v = this.sink.attributeValueLengthLimit === Infinity ? value : cut(value, this.sink.attributeValueLengthLimit);
    const keys = this.attributeKeys;
    const at = keys.indexOf(key);
    if (at >= 0) {
      this.attributeValues[at] = v;
      return;
    }
    if (keys.length >= this.sink.attributeCountLimit) {
      this.droppedAttributesCount++;
      return;
    }
    keys.push(key);
    this.attributeValues.push(v);
  }
}

/** A value with its strings cut to `limit` characters (arrays: each string). */
function cut(value: AttributeValue, limit: number): AttributeValue {
  if (typeof value === 'string') return value.length > limit ? value.slice(0, limit) : value;
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' && v.length > limit ? v.slice(0, limit) : v)) as AttributeValue;
  return value;
}

/**
 * A span the sampler left out (`OTEL_TRACES_SAMPLER`, or a caller's `traceparent` that is not sampled): it carries
 * the trace id (the answer's `x-gateway-trace-id`) and records nothing; its children are itself.
 */
export class UnsampledSpan implements GatewaySpan {
  constructor(
    readonly traceId: string,
    readonly captureContent: boolean,
  ) {}

  child(): GatewaySpan {
    return this;
  }

  set(): void {}

  fail(): void {}

  end(): void {}
}
