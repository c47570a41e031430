import { Agent, request, errors as undiciErrors, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.js';

/** One upstream HTTP call. */
export interface UpstreamRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  headers: Record<string, string>;
  body?: string | Uint8Array | Readable | null;
  signal?: AbortSignal;
  /** Milliseconds to wait for the response headers. */
  headersTimeout?: number;
  /** Milliseconds of silence allowed between body chunks. */
  bodyTimeout?: number;
}

/** The upstream's answer; `body` is streamed, read it once. */
export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export interface HttpClientOptions {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  connectionsPerOrigin: number;
}

const DEFAULTS: HttpClientOptions = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 600_000,
  bodyTimeoutMs: 600_000,
  keepAliveTimeoutMs: 30_000,
  connectionsPerOrigin: 256,
};

/**
 * The gateway's only outbound HTTP client: an undici Agent holding one keep-alive Pool per origin.
 * Connection failures become `provider_unreachable` (502); aborts propagate as AbortError.
 */
export class HttpClient {
  private readonly agent: Agent;
  private readonly opts: HttpClientOptions;

  constructor(opts: Partial<HttpClientOptions> = {}) {
    this.opts = { ...DEFAULTS, ...opts };
    this.agent = new Agent({
      connections: this.opts.connectionsPerOrigin,
      keepAliveTimeout: this.opts.keepAliveTimeoutMs,
      connect: { timeout: this.opts.connectTimeoutMs },
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: this.opts.bodyTimeoutMs,
      pipelining: 1,
    });
  }

  /** Sends one request; resolves once the status and headers arrived. */
  async send(req: UpstreamRequest, provider?: string): Promise<UpstreamResponse> {
    try {
      const res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body ?? undefined,
        signal: req.signal,
        dispatcher: this.agent,
        headersTimeout: req.headersTimeout ?? this.opts.headersTimeoutMs,
        bodyTimeout: req.bodyTimeout ?? this.opts.bodyTimeoutMs,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      throw toUpstreamError(err, req.url, provider);
    }
  }

  /** Sends a request and reads the whole body as text (small control-plane calls: tokens, metadata). */
  async sendText(req: UpstreamRequest, provider?: string): Promise<{ status: number; headers: UpstreamResponse['headers']; text: string }> {
    const res = await this.send(req, provider);
    const text = await res.body.text();
    return { status: res.status, headers: res.headers, text };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Maps a network-level failure to the catalogue. Aborts are rethrown unchanged. */
export function toUpstreamError(err: unknown, url: string, provider?: string): unknown {
  if (err instanceof GatewayError) return err;
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') return err;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('request_timeout', `The provider did not answer in time (${safeOrigin(url)}).`, { provider, cause: err, retryable: true });
  }
  return new GatewayError('provider_unreachable', `Could not reach the provider at ${safeOrigin(url)}: ${e?.code ?? e?.message ?? 'network error'}`, {
    provider,
    cause: err,
    retryable: true,
  });
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}
