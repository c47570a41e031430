import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceExport } from './trace-proto.js';

/** A span as received, attributes decoded from OTLP/JSON's `AnyValue`s. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
  /** The `content-type` of the export that carried it (`application/x-protobuf` or `application/json`). */
  contentType: string;
}

/** OTLP span kinds. */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};

function decode(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(decode);
  return undefined;
}

function attributes(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, decode(a.value)]));
}

/**
 * An in-process OTLP/HTTP receiver (`POST /v1/traces`, `application/x-protobuf` or `application/json`),
 * as a collector would be: it decodes each export request and keeps every span with its resource
 * attributes and the content type of the export that carried it.
 */
export class FakeOtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server?: Server;

  /** Base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const type = String(req.headers['content-type']);
        const json = type === 'application/json';
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !(json || type === 'application/x-protobuf')) {
          res.writeHead(415).end();
          return;
        }
        const bytes = Buffer.concat(chunks);
        let body;
        try {
          body = json ? JSON.parse(bytes.toString('utf8')) : decodeTraceExport(bytes);
        } catch {
          res.writeHead(400).end();
          return;
        }
        for (const rs of body.resourceSpans ?? []) {
          const resource = attributes(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              this.spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
                status: s.status ?? {},
                resource,
                contentType: type,
              });
            }
          }
        }
        // An empty ExportTraceServiceResponse in the request's encoding.
        res.writeHead(200, { 'content-type': type }).end(json ? '{}' : '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Waits until `count` spans of `traceId` arrived (or the time runs out), and returns them. */
  async trace(traceId: string, count: number, timeoutMs = 10_000): Promise<ReceivedSpan[]> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const spans = this.spans.filter((s) => s.traceId === traceId);
      if (spans.length >= count) return spans;
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
