import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the fake received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: Buffer;
  /** Parsed JSON body, when it was JSON. */
  body: any;
}

/**
 * A fault or canned answer for the next request(s) a fake serves (fault injection for routing tests).
 * Anything left unset falls back to the fake's normal behaviour.
 */
export interface FakeFault {
  /** Answer with this status and JSON body instead of the normal answer. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait before sending the response headers. */
  delayMs?: number;
  /** Destroy the socket without answering. */
  reset?: boolean;
  /** For streams: send this many chunks, then destroy the socket. */
  dieAfterChunks?: number;
  /** For streams: send the headers, then wait this long before the first chunk. */
  stallBeforeFirstChunkMs?: number;
  /** For streams: pause this long after this many chunks (tests that chunks pass through). */
  pauseAfterChunks?: { after: number; ms: number };
}

export type Handler = (req: RecordedRequest, res: ServerResponse, fault: FakeFault | undefined) => void | Promise<void>;

/** Base of every provider fake: an HTTP server on 127.0.0.1 with recorded requests and queued faults. */
export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  /** Responses whose client went away before the fake finished writing them. */
  abortedResponses = 0;
  private readonly faults: FakeFault[] = [];
  private server?: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  /** http://127.0.0.1:<port> */
  origin = '';

  constructor(private readonly handler: Handler) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.dispatch(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Queues faults for the next requests, one each, in order. */
  fail(...faults: FakeFault[]): void {
    this.faults.push(...faults);
  }

  /** Drops recorded requests and queued faults. */
  reset(): void {
    this.requests.length = 0;
    this.faults.length = 0;
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.requests[this.requests.length - 1];
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks);
    res.on('close', () => {
      if (!res.writableFinished) this.abortedResponses++;
    });
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: any;
    const type = String(req.headers['content-type'] ?? '');
    if (rawBody.length && type.includes('json')) {
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      rawBody,
      body,
    };
    this.requests.push(recorded);
    const fault = this.faults.shift();
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault?.reset) {
      req.socket.destroy();
      return;
    }
    if (fault?.status !== undefined) {
      sendJson(
        res,
        fault.status,
        fault.body ?? { error: { message: `fault ${fault.status}`, type: 'server_error', param: null, code: null } },
        fault.headers,
      );
      return;
    }
    try {
      await this.handler(recorded, res, fault);
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'server_error', param: null, code: null } });
      else res.destroy();
    }
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Writes stream frames one by one, honouring a fault's stall/pause/die settings.
 * `frames` are complete wire frames (SSE text or binary event-stream messages).
 */
export async function writeFrames(
  res: ServerResponse,
  frames: Array<string | Uint8Array>,
  fault: FakeFault | undefined,
  frameDelayMs = 0,
): Promise<void> {
  res.flushHeaders();
  if (fault?.stallBeforeFirstChunkMs) await sleep(fault.stallBeforeFirstChunkMs);
  for (let i = 0; i < frames.length; i++) {
    if (fault?.dieAfterChunks !== undefined && i >= fault.dieAfterChunks) {
      await sleep(20);
      res.socket?.destroy();
      return;
    }
    if (fault?.pauseAfterChunks && i === fault.pauseAfterChunks.after) await sleep(fault.pauseAfterChunks.ms);
    if (res.destroyed) return;
    res.write(frames[i]);
    if (frameDelayMs) await sleep(frameDelayMs);
  }
  res.end();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Bearer token of a request, or undefined. */
export function bearer(req: RecordedRequest): string | undefined {
  const h = req.headers.authorization;
  return typeof h === 'string' && h.startsWith('Bearer ') ? h.slice(7) : undefined;
}
