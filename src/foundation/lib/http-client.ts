import type { EventEmitter } from 'node:events';
import { Agent, errors as undiciErrors, util as undiciUtil, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.js';
import { tryParseJson } from './json.js';
import { LazyAbort, type AbortSource } from './lazy-abort.js';
import { OutboundPolicy } from './outbound-policy.js';
import { UpstreamBody, type StreamedHead } from './upstream-body.js';
import { AbortableHandler } from './abortable-handler.js';

/** One upstream HTTP call. */
export interface UpstreamRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  headers: Record<string, string>;
  body?: string | Uint8Array | Readable | null;
  /** Aborts the call; a lazy abort is listened to without creating its AbortSignal (buffered calls). */
  signal?: AbortSource;
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
  /** The URL called (for error messages, which show only its origin). */
  url: string;
}

/** A streamed upstream answer (see `HttpClient.sendStreamed`): iterate `body` once. */
export interface StreamedResponse extends StreamedHead {
  /** The URL called (for error messages, which show only its origin). */
  url: string;
}

/** A non-streamed upstream answer read whole (see `HttpClient.sendBuffered`). */
export interface BufferedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The whole body (empty when reading a non-2xx body failed). */
  body: Buffer;
  /** `performance.now()` when the status and headers arrived. */
  headersAt: number;
}

export interface HttpClientOptions {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  connectionsPerOrigin: number;
  /** Which destinations a connection may reach (default: `TRUSTED_CUSTOM_HOSTS`' default, the system resolver). */
  outbound?: OutboundPolicy;
  /**
   * Origins the operator fixed (the providers' default base URLs, e.g. `https://api.openai.com`): calls
   * to them skip the connect-time address check. Every other origin goes through it.
   */
  fixedOrigins?: Iterable<string>;
}

/**
 * Defaults of the upstream timeouts (settings `GATEWAY_UPSTREAM_*_TIMEOUT_MS`, see settings.ts): they
 * bound a stalled upstream when no `request_timeout` applies — 10 s to connect, 600 s for the
 * response headers, 600 s of silence between body chunks.
 */
export const HTTP_CLIENT_DEFAULTS: Readonly<Omit<HttpClientOptions, 'outbound' | 'fixedOrigins'>> = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 600_000,
  bodyTimeoutMs: 600_000,
  keepAliveTimeoutMs: 30_000,
  connectionsPerOrigin: 256,
};

/**
 * The gateway's only outbound HTTP client: undici Agents holding one keep-alive Pool per origin, one
 * Agent per trust class. Calls to an operator-fixed origin use the direct Agent; every other call (a
 * custom host, a URL built from user fields, a webhook) uses the guarded Agent, whose connector
 * refuses non-public addresses per the `OutboundPolicy` when the connection is opened (the refusal is
 * a 400 `invalid_request`, param `custom_host`). Connection failures become `provider_unreachable`
 * (502); aborts propagate as AbortError.
 */
export class HttpClient {
  /** The destination policy the guarded Agent enforces (shared with the custom-host pre-check). */
  readonly outbound: OutboundPolicy;
  private readonly direct: Agent;
  private readonly guarded: Agent;
  private readonly fixedOrigins: ReadonlySet<string>;
  private readonly opts: Omit<HttpClientOptions, 'outbound' | 'fixedOrigins'>;

  constructor(opts: Partial<HttpClientOptions> = {}) {
    const { outbound, fixedOrigins, ...rest } = opts;
    this.opts = { ...HTTP_CLIENT_DEFAULTS, ...rest };
    this.outbound = outbound ?? new OutboundPolicy();
    this.fixedOrigins = new Set([...(fixedOrigins ?? [])].map((o) => new URL(o).origin));
    const pools = {
      connections: this.opts.connectionsPerOrigin,
      keepAliveTimeout: this.opts.keepAliveTimeoutMs,
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: this.opts.bodyTimeoutMs,
      pipelining: 1,
    };
    this.direct = new Agent({ ...pools, connect: { timeout: this.opts.connectTimeoutMs } });
    this.guarded = new Agent({ ...pools, connect: this.outbound.connector({ timeout: this.opts.connectTimeoutMs }) });
  }

  /** The Agent for an origin: direct for an operator-fixed origin, guarded for any other. */
  private agentFor(origin: string): Agent {
    return this.fixedOrigins.has(origin) ? this.direct : this.guarded;
  }

  /** Sends one request; resolves once the status and headers arrived. */
  async send(req: UpstreamRequest, provider?: string): Promise<UpstreamResponse> {
    try {
      const { origin, path } = splitUrl(req.url);
      const res = await this.agentFor(origin).request({
        origin,
        path,
        method: req.method,
        headers: req.headers,
        body: req.body ?? undefined,
        // A lazy abort goes to undici as the EventEmitter it accepts as a signal (no AbortSignal made).
        signal: req.signal instanceof LazyAbort ? (req.signal as unknown as EventEmitter) : req.signal,
        headersTimeout: req.headersTimeout ?? this.opts.headersTimeoutMs,
        bodyTimeout: req.bodyTimeout ?? this.opts.bodyTimeoutMs,
      });
      // Every body gets an error listener at once: a body nobody reads (a refused redirect, an answer a
      // caller drops) may still fail or be destroyed, and an 'error' event without a listener ends the
      // process. A reader still sees the failure: `text()` and iteration reject with it.
      res.body.on('error', ignore);
      if (isRedirect(res.statusCode)) {
        discardBody(res.body);
        throw redirectRefused(res.statusCode, res.headers, req.url, provider);
      }
      return { status: res.statusCode, headers: res.headers, body: res.body, url: req.url };
    } catch (err) {
      throw toUpstreamError(err, req.url, provider);
    }
  }

  /**
   * `send` for a body read as it arrives (streamed answers): the same errors until the headers arrived,
   * and a body that is a plain async iterable over undici's handler callbacks instead of a Readable
   * (`UpstreamBody`: backpressure, abort on early exit; a failure while reading is thrown by the read).
   */
  async sendStreamed(req: UpstreamRequest, provider?: string): Promise<StreamedResponse> {
    try {
      const { origin, path } = splitUrl(req.url);
      const head = await new Promise<StreamedHead>((resolve, reject) =>
        this.dispatch(req, origin, path, new UpstreamBody(req.signal, resolve, reject)),
      );
      if (isRedirect(head.status)) {
        head.body.destroy();
        throw redirectRefused(head.status, head.headers, req.url, provider);
      }
      return { status: head.status, headers: head.headers, body: head.body, url: req.url };
    } catch (err) {
      throw toUpstreamError(err, req.url, provider);
    }
  }

  /**
   * `send` plus reading the whole body, for non-streamed answers, without a body stream: the same
   * errors as `send` until the headers arrived, and a failure while reading a 2xx body is mapped the
   * same way (`toUpstreamError`: a reset is `provider_unreachable`); a non-2xx body that fails to read
   * resolves as empty (its text only feeds the provider's error mapping).
   */
  sendBuffered(req: UpstreamRequest, provider?: string): Promise<BufferedResponse> {
    return new Promise<BufferedResponse>((resolve, reject) => {
      let target: { origin: string; path: string };
      try {
        target = splitUrl(req.url);
      } catch (err) {
        reject(toUpstreamError(err, req.url, provider));
        return;
      }
      this.dispatch(req, target.origin, target.path, new BufferingHandler(req, provider, resolve, reject));
    });
  }

  /**
   * Dispatches `req` to `origin` with one of the client's own handlers, its timeouts defaulted as `send` does
   * and kept by the handler's own timer instead of undici's (`AbortableHandler.timeOut`).
   */
  private dispatch(req: UpstreamRequest, origin: string, path: string, handler: AbortableHandler): void {
    handler.timeOut(req.headersTimeout ?? this.opts.headersTimeoutMs, req.bodyTimeout ?? this.opts.bodyTimeoutMs);
    this.agentFor(origin).dispatch(
      {
        origin,
        path,
        method: req.method,
        headers: req.headers,
        body: (req.body ?? undefined) as Dispatcher.DispatchOptions['body'],
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      handler as unknown as Dispatcher.DispatchHandler,
    );
  }

  /**
   * Sends a request and reads the whole body as text (small control-plane calls: tokens, metadata);
   * a failure while reading the body is mapped by `toUpstreamError` like one before the headers.
   */
  async sendText(req: UpstreamRequest, provider?: string): Promise<{ status: number; headers: UpstreamResponse['headers']; text: string }> {
    const res = await this.send(req, provider);
    const text = await readBodyText(res, provider);
    return { status: res.status, headers: res.headers, text };
  }

  /**
   * GETs a small JSON document (model lists and other metadata). A non-2xx answer is thrown as the
   * provider's `mapError` makes it; a body that is not JSON reads as `undefined`.
   */
  async getJson(
    req: { url: string; headers: Record<string, string>; signal?: AbortSignal },
    provider: string,
    mapError: (status: number, body: string, headers: UpstreamResponse['headers']) => GatewayError,
  ): Promise<unknown> {
    const { 'content-type': _omitted, ...headers } = req.headers;
    const res = await this.sendText({ url: req.url, method: 'GET', headers, signal: req.signal }, provider);
    if (res.status < 200 || res.status >= 300) throw mapError(res.status, res.text, res.headers);
    return tryParseJson(res.text);
  }

  async close(): Promise<void> {
    await Promise.all([this.direct.close(), this.guarded.close()]);
  }
}

function ignore(): void {}

/**
 * Drops an upstream body the gateway will not read: its connection is aborted and the abort error the
 * body then emits is handled (undici's body emits `RequestAbortedError` when destroyed before its end).
 */
export function discardBody(body: UpstreamResponse['body']): void {
  body.on('error', ignore);
  body.destroy();
}

/** A 3xx that points elsewhere; 304 Not Modified (the answer to a conditional request) is not one. */
function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

const urls = new Map<string, { origin: string; path: string }>();

/** Origin and path of an upstream URL, as undici's `request(url)` derives them; remembered per distinct URL. */
function splitUrl(url: string): { origin: string; path: string } {
  let hit = urls.get(url);
  if (hit === undefined) {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new undiciErrors.InvalidArgumentError('Invalid URL protocol: the URL must start with `http:` or `https:`.');
    hit = { origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
    if (urls.size >= 1024) urls.clear();
    urls.set(url, hit);
  }
  return hit;
}

/** The chunks of a body copied into one Buffer of `length` bytes. */
function joined(chunks: readonly Buffer[], length: number): Buffer {
  const body = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  return body;
}

/**
 * An undici dispatch handler that collects the body into one Buffer (no body stream, no async
 * resource), with the client's abort signal wired like undici's `request` does it. A body that came in
 * one read is that read's own Buffer (undici hands each read's bytes over as a view of the socket's chunk,
 * which nothing writes again), not a copy.
 */
class BufferingHandler extends AbortableHandler {
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private headersAt = 0;
  private chunks: Buffer[] = [];
  private length = 0;
  private settled = false;

  constructor(
    private readonly req: UpstreamRequest,
    private readonly provider: string | undefined,
    private readonly resolve: (r: BufferedResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    super(req.signal);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true;
    this.heard();
    this.status = statusCode;
    this.headers = undiciUtil.parseHeaders(rawHeaders) as Record<string, string | string[] | undefined>;
    this.headersAt = performance.now();
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.heard();
    this.chunks.push(chunk);
    this.length += chunk.length;
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    this.detach();
    const body = this.chunks.length === 1 ? this.chunks[0]! : joined(this.chunks, this.length);
    this.chunks = [];
    if (isRedirect(this.status)) this.reject(redirectRefused(this.status, this.headers, this.req.url, this.provider));
    else this.resolve({ status: this.status, headers: this.headers, body, headersAt: this.headersAt });
  }

  onError(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.detach();
    this.chunks = [];
    if (this.status === 0) this.reject(toUpstreamError(err, this.req.url, this.provider));
    else if (isRedirect(this.status)) this.reject(redirectRefused(this.status, this.headers, this.req.url, this.provider));
    else if (this.status < 200 || this.status >= 300)
      this.resolve({ status: this.status, headers: this.headers, body: Buffer.alloc(0), headersAt: this.headersAt });
    else this.reject(toUpstreamError(err, this.req.url, this.provider, 'body'));
  }
}

/**
 * Reads a `send` answer's whole body as text; a failure while reading (the upstream reset the
 * connection, the body timed out) is mapped by `toUpstreamError`, aborts are rethrown unchanged.
 */
export async function readBodyText(res: UpstreamResponse, provider?: string): Promise<string> {
  try {
    return await res.body.text();
  } catch (err) {
    throw toUpstreamError(err, res.url, provider, 'body');
  }
}

/**
 * Maps a network-level failure to the catalogue: the one classification of upstream faults, before
 * the headers (`phase` `connect`, the default) or while reading the body (`body`): a timeout is 408
 * `request_timeout`, any other failure (refused, reset, `UND_ERR_SOCKET`, "terminated") 502
 * `provider_unreachable`, both retryable. Aborts are rethrown unchanged.
 */
export function toUpstreamError(err: unknown, url: string, provider?: string, phase: 'connect' | 'body' = 'connect'): unknown {
  if (err instanceof GatewayError) return err;
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') return err;
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('request_timeout', `The provider did not answer in time (${safeOrigin(url)}).`, {
      provider,
      cause: err,
      retryable: true,
    });
  }
  const what =
    phase === 'body'
      ? `The connection to the provider at ${safeOrigin(url)} broke off while reading its answer`
      : `Could not reach the provider at ${safeOrigin(url)}`;
  return new GatewayError('provider_unreachable', `${what}: ${e?.code ?? e?.message ?? 'network error'}`, {
    provider,
    cause: err,
    retryable: true,
  });
}

/**
 * The error for an upstream 3xx: the gateway never follows a provider's redirect (it would carry the
 * provider credential to another host, past the custom-host guard) and never relays one (the client
 * would follow it with its gateway key): 502 `provider_error`, naming the status and where it pointed.
 */
export function redirectRefused(status: number, headers: UpstreamResponse['headers'], url: string, provider?: string): GatewayError {
  const location = headers.location;
  const where = typeof location === 'string' && location.length > 0 ? ` to ${safeTarget(location, url)}` : '';
  return new GatewayError(
    'provider_error',
    `The provider at ${safeOrigin(url)} answered with a redirect (${status})${where}; the gateway does not follow provider redirects.`,
    {
      status: 502,
      provider,
      retryable: false,
    },
  );
}

/** Origin and path of a redirect target (its query and fragment may carry secrets), resolved against the request URL. */
function safeTarget(location: string, base: string): string {
  try {
    const u = new URL(location, base);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'an invalid URL';
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}
