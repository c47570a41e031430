import type { Attributes, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { OtelSpan } from '../observability/otel-span.js';

/**
 * Encodes finished spans as an OTLP `ExportTraceServiceRequest` in protobuf (opentelemetry-proto's
 * `collector/trace/v1`, `trace/v1`, `common/v1`, `resource/v1`), byte for byte what
 * `@opentelemetry/otlp-transformer`'s `ProtobufTraceSerializer` writes for the same spans (a test holds the
 * two side by side): the same fields in the same order, the same grouping by resource and scope.
 *
 * Why not that serializer: it measures every message in a first pass and writes it in a second, one byte
 * at a time through method calls, and converts each hex id into a new array first. For the gateway's three
 * spans per request that was ~130k CPU instructions per request (callgrind, bench/README.md), more than a
 * third of what the whole untraced request costs. Here one pass writes into a reused buffer: strings
 * straight from their characters (ASCII; others through `Buffer.write`), ids straight from their hex
 * digits, and a message's length is written in front of it once its size is known (its bytes moved when
 * the length needs more than the byte kept for it).
 */
export function encodeTraceExport(spans: ReadableSpan[]): Uint8Array {
  pos = 0;
  const byResource = new Map<ReadableSpan['resource'], Map<ReadableSpan['instrumentationScope'], ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (!scopes) byResource.set(span.resource, (scopes = new Map()));
    const list = scopes.get(span.instrumentationScope);
    if (list) list.push(span);
    else scopes.set(span.instrumentationScope, [span]);
  }
  for (const [resource, scopes] of byResource) {
    // ExportTraceServiceRequest.resource_spans (1)
    tag(1, 2);
    const rs = begin(3);
    // ResourceSpans.resource (1): Resource { attributes (1), dropped_attributes_count (2) = 0 }
    tag(1, 2);
    const r = begin(1);
    if (resource.attributes) attributes(resource.attributes, 1);
    tag(2, 0);
    varint(0);
    end(r, 1);
    for (const list of scopes.values()) {
      // ResourceSpans.scope_spans (2)
      tag(2, 2);
      const ss = begin(3);
      const scope = list[0]!.instrumentationScope;
      // ScopeSpans.scope (1): InstrumentationScope { name (1), version (2) }
      tag(1, 2);
      const sc = begin(1);
      tag(1, 2);
      string(scope.name);
      if (scope.version) {
        tag(2, 2);
        string(scope.version);
      }
      end(sc, 1);
      for (const span of list) {
        // ScopeSpans.spans (2)
        tag(2, 2);
        encodeSpan(span);
      }
      if (scope.schemaUrl) {
        tag(3, 2);
        string(scope.schemaUrl);
      }
      end(ss, 3);
    }
    if (resource.schemaUrl) {
      tag(3, 2);
      string(resource.schemaUrl);
    }
    end(rs, 3);
  }
  // A copy: the buffer is written again by the next export while this one may still be in flight.
  return Uint8Array.prototype.slice.call(buf, 0, pos);
}

/** The buffer every export is written into (grown as needed, kept between exports). */
let buf = Buffer.allocUnsafe(64 * 1024);
/** Where the next byte goes. */
let pos = 0;

/** Makes room for `n` more bytes. */
function room(n: number): void {
  if (pos + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const grown = Buffer.allocUnsafe(size);
  buf.copy(grown, 0, 0, pos);
  buf = grown;
}

function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** A varint: unsigned 32-bit values directly, others as 64-bit two's complement (as int64 fields take them). */
function varint(value: number): void {
  room(10);
  if (value >= 0 && value <= 0xffffffff) {
    let v = value >>> 0;
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    return;
  }
  let low: number;
  let high: number;
  if (value >= 0) {
    low = value >>> 0;
    high = (value / 0x100000000) >>> 0;
  } else {
    const abs = Math.abs(value);
    low = ~(abs >>> 0) >>> 0;
    high = ~((abs / 0x100000000) >>> 0) >>> 0;
    low = (low + 1) >>> 0;
    if (low === 0) high = (high + 1) >>> 0;
  }
  while (high > 0 || low > 0x7f) {
    buf[pos++] = (low & 0x7f) | 0x80;
    low = ((low >>> 7) | (high << 25)) >>> 0;
    high >>>= 7;
  }
  buf[pos++] = low;
}

/** A field's key: one byte written directly for the fields below 16 (all but `Span.flags`), else a varint. */
function tag(field: number, wireType: number): void {
  const key = (field << 3) | wireType;
  if (key < 0x80) {
    if (pos >= buf.length) room(1);
    buf[pos++] = key;
    return;
  }
  varint(key);
}

/** Starts a length-delimited message: `reserve` bytes kept for its length, where its bytes begin returned. */
function begin(reserve: number): number {
  room(reserve);
  pos += reserve;
  return pos;
}

/** Ends a message begun at `start` with `reserve` bytes kept: its length written, its bytes moved if the length takes more or fewer. */
function end(start: number, reserve: number): void {
  const length = pos - start;
  const size = varintSize(length);
  let at = start - reserve;
  if (size !== reserve) {
    room(size - reserve);
    buf.copyWithin(at + size, start, pos);
    pos += size - reserve;
  }
  let v = length;
  while (v > 0x7f) {
    buf[at++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[at] = v;
}

/**
 * Strings up to this length are copied character by character; longer ones are written natively. A call
 * into `Buffer.write` costs ~700 instructions of binding work (callgrind), the loop ~19 per character.
 */
const SHORT_STRING = 48;

/**
 * A length-delimited UTF-8 string. Short ASCII strings are copied character by character; longer strings
 * (and any with a character past ASCII) are written by `Buffer.write`: when their UTF-8 form surely fits a
 * one-byte length (at most 42 UTF-16 units, 3 bytes each), straight after it, else measured first.
 * A lone surrogate becomes U+FFFD, as with TextEncoder.
 */
function string(s: string): void {
  const n = s.length;
  if (n <= SHORT_STRING) {
    room(n + 1);
    const b = buf;
    const start = pos;
    let p = pos + 1;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) {
        pos = start;
        return longString(s);
      }
      b[p++] = c;
    }
    b[start] = n;
    pos = p;
    return;
  }
  longString(s);
}

function longString(s: string): void {
  const n = s.length;
  if (n <= 42) {
    room(1 + 3 * n);
    const written = buf.write(s, pos + 1, 'utf8');
    buf[pos] = written;
    pos += 1 + written;
    return;
  }
  const bytes = Buffer.byteLength(s, 'utf8');
  varint(bytes);
  room(bytes);
  pos += buf.write(s, pos, bytes, 'utf8');
}

/** The value of each hex digit by character code below 128 (0-9, a-f, A-F; anything else as `hexDigit` reads it). */
const HEX_VALUE = new Uint8Array(128);
for (let c = 0; c < 128; c++) HEX_VALUE[c] = hexDigit(c) & 0xff;

function hexDigit(c: number): number {
  // 0-9, a-f, A-F (anything else as the reference serializer reads it)
  return c <= 57 ? c - 48 : c >= 97 ? c - 87 : c - 55;
}

/** The trace id written last and its bytes: a request's spans share one trace id string, so it is converted once. */
let lastTraceHex = '';
const lastTraceBytes = new Uint8Array(16);

/**
 * A hex id (trace or span id) as length-delimited bytes (16 or 8: a loop costs less than a call into
 * `Buffer.write`); digits through a table. A trace id equal to the last one written is copied from its bytes.
 */
function hexBytes(hex: string): void {
  const n = hex.length >>> 1;
  if (n > 0x7f) varint(n);
  else {
    room(1);
    buf[pos++] = n;
  }
  room(n);
  const b = buf;
  let p = pos;
  if (n === 16 && hex === lastTraceHex) {
    b.set(lastTraceBytes, p);
    pos = p + 16;
    return;
  }
  for (let i = 0; i < n; i++) {
    const hi = hex.charCodeAt(2 * i);
    const lo = hex.charCodeAt(2 * i + 1);
    b[p++] = ((hi < 128 ? HEX_VALUE[hi]! : hexDigit(hi)) << 4) | (lo < 128 ? HEX_VALUE[lo]! : hexDigit(lo));
  }
  if (n === 16) {
    lastTraceHex = hex;
    lastTraceBytes.set(b.subarray(pos, p));
  }
  pos = p;
}

/** Bytes copied in (`TypedArray.prototype.set`: cheaper than a loop even for a dozen bytes, measured with callgrind). */
function copyIn(bytes: Uint8Array): void {
  room(bytes.length);
  buf.set(bytes, pos);
  pos += bytes.length;
}

function fixed32(v: number): void {
  room(4);
  buf[pos++] = v & 0xff;
  buf[pos++] = (v >>> 8) & 0xff;
  buf[pos++] = (v >>> 16) & 0xff;
  buf[pos++] = (v >>> 24) & 0xff;
}

/** An `HrTime` (seconds, nanoseconds) as nanoseconds since the epoch, fixed64. */
function hrTime(t: HrTime): void {
  epochNanos(t[0], t[1]);
}

/** Seconds and nanoseconds since the epoch as nanoseconds, fixed64, without leaving 53-bit integers. */
function epochNanos(seconds: number, nanos: number): void {
  const low16 = (seconds & 0xffff) * 1e9;
  const high = ((seconds / 0x10000) >>> 0) * 1e9;
  const low32 = (low16 >>> 0) + (((high & 0xffff) * 0x10000) >>> 0) + nanos;
  fixed32(low32 >>> 0);
  fixed32((Math.floor(low16 / 0x100000000) + ((high / 0x10000) >>> 0) + Math.floor(low32 / 0x100000000)) >>> 0);
}

/** The process's time origin (`performance.timeOrigin`) in whole seconds and nanoseconds, as `@opentelemetry/core`'s `hrTime` splits it. */
const ORIGIN_SECONDS = Math.trunc(performance.timeOrigin / 1000);
const ORIGIN_NANOS = Math.round((performance.timeOrigin % 1000) * 1e6);

/**
 * A `performance.now()` reading as nanoseconds since the epoch, fixed64: the same value as `@opentelemetry/core`'s
 * `hrTime(reading)` (origin and reading each split into seconds and rounded nanoseconds, then added), which is what
 * `OtelSpan.startTime` and `endTime` return, without its three arrays per call.
 */
function perfTime(reading: number): void {
  let seconds = ORIGIN_SECONDS + Math.trunc(reading / 1000);
  let nanos = ORIGIN_NANOS + Math.round((reading % 1000) * 1e6);
  if (nanos >= 1e9) {
    nanos -= 1e9;
    seconds += 1;
  }
  epochNanos(seconds, nanos);
}

const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

/** An `AnyValue`'s fields (string 1, bool 2, int 3, double 4, array 5, kvlist 6, bytes 7); nothing for undefined or null. */
function anyValue(value: unknown): void {
  if (typeof value === 'string') {
    tag(1, 2);
    string(value);
  } else if (typeof value === 'boolean') {
    tag(2, 0);
    varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
      tag(3, 0);
      varint(value);
    } else {
      tag(4, 1);
      room(8);
      pos = buf.writeDoubleLE(value, pos);
    }
  } else if (value instanceof Uint8Array) {
    tag(7, 2);
    varint(value.length);
    room(value.length);
    buf.set(value, pos);
    pos += value.length;
  } else if (Array.isArray(value)) {
    tag(5, 2);
    const array = begin(1);
    for (const item of value) {
      tag(1, 2);
      const v = begin(1);
      anyValue(item);
      end(v, 1);
    }
    end(array, 1);
  } else if (typeof value === 'object' && value !== null) {
    tag(6, 2);
    const list = begin(1);
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      tag(1, 2);
      const kv = begin(1);
      keyValue(key, (value as Record<string, unknown>)[key]);
      end(kv, 1);
    }
    end(list, 1);
  }
}

/** A `KeyValue`'s fields: key (1), value (2); the key copied from `encodedName` (`encodedKey`) when given. */
function keyValue(key: string, value: unknown, encodedName?: Uint8Array): void {
  if (encodedName) copyIn(encodedName);
  else {
    tag(1, 2);
    string(key);
  }
  tag(2, 2);
  const v = begin(1);
  anyValue(value);
  end(v, 1);
}

/** Attributes as repeated `KeyValue` in field `field`, in their own order. */
function attributes(attrs: Attributes, field: number): void {
  for (const key in attrs) {
    if (!Object.prototype.hasOwnProperty.call(attrs, key)) continue;
    if (field === SPAN_ATTRIBUTES) spanAttribute(key, attrs[key]);
    else attribute(field, key, attrs[key]);
  }
}

/** A span's attributes given as names and values (`OtelSpan`'s arrays), in their order. */
function attributeList(keys: readonly string[], values: readonly unknown[]): void {
  for (let i = 0; i < keys.length; i++) spanAttribute(keys[i]!, values[i]);
}

/** One span attribute: its remembered bytes when the value is a string seen before, else written out (its name's bytes remembered). */
function spanAttribute(key: string, value: unknown): void {
  if (typeof value === 'string') {
    const whole = encodedAttribute(key, value);
    if (whole) {
      copyIn(whole);
      return;
    }
  }
  attribute(SPAN_ATTRIBUTES, key, value, encodedKey(key));
}

/** One attribute as field `field`: tag, length, `KeyValue` (its key from `encodedName` when given). */
function attribute(field: number, key: string, value: unknown, encodedName?: Uint8Array): void {
  tag(field, 2);
  const kv = begin(1);
  keyValue(key, value, encodedName);
  end(kv, 1);
}

/** The bytes `write` appends, kept as their own copy; the buffer is left as it was (nothing written). */
function encodedBy(write: () => void): Uint8Array {
  const start = pos;
  write();
  const bytes = Uint8Array.prototype.slice.call(buf, start, pos);
  pos = start;
  return bytes;
}

/** `Span.attributes`: the field whose string attributes are remembered encoded. */
const SPAN_ATTRIBUTES = 9;
/** Distinct string values remembered per attribute name; a name with more (ids, paths) is written each time. */
const VALUES_PER_KEY = 32;
/** Attribute names remembered at most (the gateway's spans name a few dozen). */
const MAX_KEYS = 512;

/**
 * Span attributes with a string value, encoded whole (field tag, length, `KeyValue`) by name and value. Most of a
 * request's span attributes repeat from request to request (`gen_ai.operation.name: chat`, the provider, the
 * model, the route, the method): copying their bytes replaces a character-by-character write of the name and the
 * value (the encoder's largest cost per request, bench/README.md). A name that takes more than `VALUES_PER_KEY`
 * values (a request id, a URL path) is marked `null` and always written out; memory stays bounded either way.
 */
const encodedAttributes = new Map<string, Map<string, Uint8Array> | null>();

/** The bytes of span attribute `key: value` as `attributes` writes them, remembered; undefined when not remembered. */
function encodedAttribute(key: string, value: string): Uint8Array | undefined {
  let values = encodedAttributes.get(key);
  if (values === null) return undefined;
  if (values === undefined) {
    if (encodedAttributes.size >= MAX_KEYS) return undefined;
    encodedAttributes.set(key, (values = new Map()));
  }
  const known = values.get(value);
  if (known !== undefined) return known;
  if (values.size >= VALUES_PER_KEY) {
    encodedAttributes.set(key, null);
    return undefined;
  }
  const bytes = encodedBy(() => attribute(SPAN_ATTRIBUTES, key, value));
  values.set(value, bytes);
  return bytes;
}

/**
 * `KeyValue.key` of span attribute names, encoded (tag, length, name), for the attributes whose values are
 * written each time (numbers, booleans, strings of names with many values): copying the name's bytes replaces
 * its character-by-character write. At most `MAX_KEYS` names; undefined past that.
 */
const encodedKeys = new Map<string, Uint8Array>();

function encodedKey(key: string): Uint8Array | undefined {
  const known = encodedKeys.get(key);
  if (known !== undefined || encodedKeys.size >= MAX_KEYS) return known;
  const bytes = encodedBy(() => {
    tag(1, 2);
    string(key);
  });
  encodedKeys.set(key, bytes);
  return bytes;
}

/** `Span.flags`: the trace flags, "has is_remote" (0x100) and "is remote" (0x200) of the parent context. */
function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);
}

/** A span's or a link's first three fields, alike in both messages: trace_id (1), span_id (2), trace_state (3, when set). */
function contextIds(ctx: SpanContext): void {
  tag(1, 2);
  hexBytes(ctx.traceId);
  tag(2, 2);
  hexBytes(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    tag(3, 2);
    string(traceState);
  }
}

function encodeSpan(span: ReadableSpan): void {
  const s = begin(2);
  const ctx = span.spanContext();
  contextIds(ctx);
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    tag(4, 2);
    hexBytes(parent.spanId);
  }
  tag(5, 2);
  string(span.name);
  // SpanKind is one more than the API's (0 is "unspecified" in the protocol).
  if (span.kind != null) {
    tag(6, 0);
    varint(span.kind + 1);
  }
  tag(7, 1);
  if (span instanceof OtelSpan) {
    perfTime(span.startAt);
    tag(8, 1);
    perfTime(span.endAt);
    attributeList(span.attributeKeys, span.attributeValues);
  } else {
    hrTime(span.startTime);
    tag(8, 1);
    hrTime(span.endTime);
    if (span.attributes) attributes(span.attributes, SPAN_ATTRIBUTES);
  }
  tag(10, 0);
  varint(span.droppedAttributesCount);
  for (const event of span.events) {
    tag(11, 2);
    encodeEvent(event);
  }
  tag(12, 0);
  varint(span.droppedEventsCount);
  for (const link of span.links) {
    tag(13, 2);
    encodeLink(link);
  }
  tag(14, 0);
  varint(span.droppedLinksCount);
  // Status { message (2), code (3) }
  tag(15, 2);
  const st = begin(1);
  if (span.status.message) {
    tag(2, 2);
    string(span.status.message);
  }
  tag(3, 0);
  varint(span.status.code);
  end(st, 1);
  tag(16, 5);
  fixed32(spanFlags(ctx.traceFlags, parent?.isRemote));
  end(s, 2);
}

function encodeEvent(event: TimedEvent): void {
  const e = begin(1);
  tag(1, 1);
  hrTime(event.time);
  tag(2, 2);
  string(event.name);
  if (event.attributes) attributes(event.attributes, 3);
  tag(4, 0);
  varint(event.droppedAttributesCount || 0);
  end(e, 1);
}

function encodeLink(link: Link): void {
  const l = begin(1);
  const ctx = link.context;
  contextIds(ctx);
  if (link.attributes) attributes(link.attributes, 4);
  tag(5, 0);
  varint(link.droppedAttributesCount || 0);
  tag(6, 5);
  fixed32(spanFlags(ctx.traceFlags, ctx.isRemote));
  end(l, 1);
}
