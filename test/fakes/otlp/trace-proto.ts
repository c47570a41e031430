import protobuf from 'protobufjs';

/**
 * The messages of OTLP's `ExportTraceServiceRequest` that a trace export carries, field numbers and
 * types as in opentelemetry-proto (`collector/trace/v1/trace_service.proto`, `trace/v1/trace.proto`,
 * `common/v1/common.proto`, `resource/v1/resource.proto`), for protobufjs to decode an `http/protobuf`
 * export. Events and links are declared so that a span carrying them still decodes.
 */
const OTLP_TRACE = {
  nested: {
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
        schemaUrl: { type: 'string', id: 3 },
      },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 }, droppedAttributesCount: { type: 'uint32', id: 2 } } },
    ScopeSpans: {
      fields: {
        scope: { type: 'InstrumentationScope', id: 1 },
        spans: { rule: 'repeated', type: 'Span', id: 2 },
        schemaUrl: { type: 'string', id: 3 },
      },
    },
    InstrumentationScope: {
      fields: {
        name: { type: 'string', id: 1 },
        version: { type: 'string', id: 2 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
        droppedAttributesCount: { type: 'uint32', id: 4 },
      },
    },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        traceState: { type: 'string', id: 3 },
        parentSpanId: { type: 'bytes', id: 4 },
        flags: { type: 'fixed32', id: 16 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        endTimeUnixNano: { type: 'fixed64', id: 8 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        droppedAttributesCount: { type: 'uint32', id: 10 },
        events: { rule: 'repeated', type: 'Event', id: 11 },
        droppedEventsCount: { type: 'uint32', id: 12 },
        links: { rule: 'repeated', type: 'Link', id: 13 },
        droppedLinksCount: { type: 'uint32', id: 14 },
        status: { type: 'Status', id: 15 },
      },
    },
    Event: {
      fields: {
        timeUnixNano: { type: 'fixed64', id: 1 },
        name: { type: 'string', id: 2 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
        droppedAttributesCount: { type: 'uint32', id: 4 },
      },
    },
    Link: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        traceState: { type: 'string', id: 3 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 4 },
        droppedAttributesCount: { type: 'uint32', id: 5 },
        flags: { type: 'fixed32', id: 6 },
      },
    },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
        kvlistValue: { type: 'KeyValueList', id: 6 },
        bytesValue: { type: 'bytes', id: 7 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
  },
};

const request = protobuf.Root.fromJSON(OTLP_TRACE).lookupType('ExportTraceServiceRequest');

const hex = (base64: unknown) => (typeof base64 === 'string' ? Buffer.from(base64, 'base64').toString('hex') : undefined);

/**
 * Decodes an `http/protobuf` export into the shape OTLP/JSON gives the same request (ids as lowercase
 * hex, 64-bit integers as strings, enums as numbers), so one reader serves both encodings.
 */
export function decodeTraceExport(body: Uint8Array): {
  resourceSpans?: Array<{ resource?: { attributes?: unknown[] }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }>;
} {
  const decoded = request.toObject(request.decode(body), { longs: String, enums: Number, bytes: String, defaults: false }) as ReturnType<
    typeof decodeTraceExport
  >;
  for (const rs of decoded.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        span.traceId = hex(span.traceId);
        span.spanId = hex(span.spanId);
        span.parentSpanId = hex(span.parentSpanId);
      }
    }
  }
  return decoded;
}
