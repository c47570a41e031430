import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpTransport } from '../../infra/store/repos/mcp.js';
import type { UpstreamFetch } from './upstream-fetch.js';

/** Where and how to reach an upstream MCP server (header values opened from the secret box). */
export interface UpstreamTarget {
  url: string;
  transport: McpTransport;
  headers: Record<string, string>;
}

/** What one exchange needs of the client session: the upstream session and protocol version, when known. */
export interface UpstreamSessionState {
  upstreamSessionId: string | null;
  protocolVersion: string | null;
}

/** Messages the upstream sends while answering a request (progress, logging, server-to-client requests). */
export type Relay = (message: JSONRPCMessage) => void;

/** The upstream failed to answer: unreachable, refused, closed without an answer, or too slow. */
export class UpstreamFailure extends Error {
  constructor(
    message: string,
    /** The upstream HTTP status when it answered with one (404: its session is gone). */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** An upstream's refusal of a message posted to its HTTP+SSE endpoint, with the HTTP status as `code` (as the SDK's stream errors carry it). */
class PostRefused extends Error {
  constructor(
    readonly code: number,
    text: string,
  ) {
    super(`Error POSTing to endpoint (HTTP ${code})${text ? `: ${text.slice(0, 200)}` : ''}`);
  }
}

/**
 * `fetch` for an SSE transport that turns a refused POST into a `PostRefused`: the SDK's own error for it says the
 * status only in its message, and a 401 must be told apart to renew a user's OAuth token.
 */
function statusKeeping(fetch: FetchLike): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    if (init?.method !== 'POST' || res.ok) return res;
    throw new PostRefused(res.status, await res.text().catch(() => ''));
  };
}

/** How long after an answer stream's last byte its answer may still be parsed out of it. */
const STREAM_END_GRACE_MS = 200;

/** Longest wait for one upstream answer (tool calls may run long; progress keeps the client informed). */
export const UPSTREAM_TIMEOUT_MS = 300_000;

function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : undefined;
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const base = err instanceof Error ? err.message : String(err);
  return cause?.code ? `${base} (${cause.code})` : base;
}

/**
 * Sends one client message to the upstream and, for a request, waits for its answer while relaying
 * whatever else the upstream sends on that answer's stream. The transport lives for the exchange only
 * (`StreamableHTTPClientTransport` carries the upstream session id and protocol version), so any
 * replica can serve any message of a session. Resolves with the answer (undefined for notifications and
 * responses) and the upstream session id (set by the upstream on `initialize`).
 */
export async function exchangeOverHttp(
  fetcher: UpstreamFetch,
  target: UpstreamTarget,
  state: UpstreamSessionState,
  message: JSONRPCMessage,
  relay: Relay,
  signal?: AbortSignal,
): Promise<{ answer?: JSONRPCResponse; upstreamSessionId: string | null }> {
  let settle!: { resolve(a: JSONRPCResponse | undefined): void; reject(e: unknown): void };
  const answered = new Promise<JSONRPCResponse | undefined>((resolve, reject) => (settle = { resolve, reject }));
  const wantsAnswer = isJSONRPCRequest(message);
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    sessionId: state.upstreamSessionId ?? undefined,
    requestInit: { headers: target.headers },
    // A stream that closed without the answer is a failure, not a wait for the timeout (after a grace
    // period: the transport is still parsing the stream's last events when its bytes end).
    fetch: fetcher.fetchFor(() =>
      setTimeout(
        () => settle.reject(new UpstreamFailure('The upstream MCP server closed its answer stream without answering.')),
        STREAM_END_GRACE_MS,
      ).unref(),
    ),
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
  });
  if (state.protocolVersion) transport.setProtocolVersion(state.protocolVersion);
  transport.onmessage = (m) => {
    if ((isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m)) && wantsAnswer && m.id === (message as JSONRPCRequest).id)
      settle.resolve(m);
    else relay(m);
  };
  transport.onerror = (err) => settle.reject(new UpstreamFailure(`The upstream MCP server failed: ${describe(err)}`, statusOf(err)));
  const timer = setTimeout(
    () => settle.reject(new UpstreamFailure(`The upstream MCP server did not answer within ${UPSTREAM_TIMEOUT_MS / 1000} s.`)),
    UPSTREAM_TIMEOUT_MS,
  );
  const onAbort = () => settle.reject(new UpstreamFailure('The client closed the connection.'));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await transport.start();
    try {
      await transport.send(message);
    } catch (err) {
      throw new UpstreamFailure(`The upstream MCP server could not be reached: ${describe(err)}`, statusOf(err));
    }
    const answer = wantsAnswer ? await answered : undefined;
    return { answer, upstreamSessionId: transport.sessionId ?? state.upstreamSessionId };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    answered.catch(() => undefined);
    transport.onerror = undefined;
    await transport.close().catch(() => undefined);
  }
}

/** Ends the upstream session (HTTP `DELETE`); an upstream that does not support it (405) is fine. */
export async function terminateOverHttp(fetcher: UpstreamFetch, target: UpstreamTarget, state: UpstreamSessionState): Promise<void> {
  if (!state.upstreamSessionId) return;
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    sessionId: state.upstreamSessionId,
    requestInit: { headers: target.headers },
    fetch: fetcher.fetchFor(),
  });
  if (state.protocolVersion) transport.setProtocolVersion(state.protocolVersion);
  try {
    await transport.start();
    await transport.terminateSession();
  } finally {
    await transport.close().catch(() => undefined);
  }
}

/**
 * A connection to an upstream speaking the older HTTP+SSE transport: the upstream answers on one long
 * GET stream, so the connection lives in the replica that opened it. Answers are matched to requests by
 * id; other messages go to the relay of the oldest request still waiting.
 */
export class SseLink {
  private readonly pending = new Map<string | number, { resolve(a: JSONRPCResponse): void; reject(e: unknown): void; relay: Relay }>();
  private closed = false;
  /** Exchanges under way (a link is idle only with none). */
  private busy = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private idle: { ms: number; onIdle: () => void } | undefined;

  private constructor(private readonly transport: Transport) {
    transport.onmessage = (m) => {
      if ((isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m)) && m.id !== undefined && this.pending.has(m.id)) {
        const p = this.pending.get(m.id)!;
        this.pending.delete(m.id);
        p.resolve(m);
        return;
      }
      this.pending.values().next().value?.relay(m);
    };
    transport.onclose = () => this.fail(new UpstreamFailure('The upstream MCP server closed its SSE stream.'));
    transport.onerror = (err) => this.fail(new UpstreamFailure(`The upstream MCP server failed: ${describe(err)}`, statusOf(err)));
  }

  /** Opens the SSE stream (resolves once the upstream named its message endpoint). */
  static async open(fetcher: UpstreamFetch, target: UpstreamTarget): Promise<SseLink> {
    const transport = new SSEClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
      fetch: statusKeeping(fetcher.fetchFor()),
    });
    try {
      await transport.start();
    } catch (err) {
      await transport.close().catch(() => undefined);
      throw new UpstreamFailure(`The upstream MCP server could not be reached: ${describe(err)}`, statusOf(err));
    }
    return new SseLink(transport);
  }

  /** Whether the stream is still open. */
  get live(): boolean {
    return !this.closed;
  }

  /**
   * Closes the stream once it has carried no exchange for `ms` (none under way), then calls `onIdle`: a client that
   * drops its session without `DELETE` must not keep the upstream connection open for ever.
   */
  closeWhenIdle(ms: number, onIdle: () => void): void {
    this.idle = { ms, onIdle };
    this.armIdle();
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    if (!this.idle || this.closed || this.busy > 0) return;
    const { ms, onIdle } = this.idle;
    this.idleTimer = setTimeout(() => {
      if (this.busy > 0) return;
      onIdle();
      void this.close();
    }, ms).unref();
  }

  /** Sends a message; for a request, resolves with its answer. */
  async exchange(message: JSONRPCMessage, relay: Relay, signal?: AbortSignal): Promise<JSONRPCResponse | undefined> {
    if (this.closed) throw new UpstreamFailure('The upstream MCP server closed its SSE stream.');
    this.busy++;
    clearTimeout(this.idleTimer);
    try {
      return await this.exchangeNow(message, relay, signal);
    } finally {
      this.busy--;
      this.armIdle();
    }
  }

  private async exchangeNow(message: JSONRPCMessage, relay: Relay, signal?: AbortSignal): Promise<JSONRPCResponse | undefined> {
    if (!isJSONRPCRequest(message)) {
      await this.send(message);
      return undefined;
    }
    const id = message.id;
    const answer = new Promise<JSONRPCResponse>((resolve, reject) => this.pending.set(id, { resolve, reject, relay }));
    // A failed send rejects the answer too (the transport reports the error before it throws it), and then the answer
    // is never awaited: without this, that rejection went unhandled and ended the process.
    answer.catch(() => undefined);
    const timer = setTimeout(
      () => this.settleFailed(id, new UpstreamFailure(`The upstream MCP server did not answer within ${UPSTREAM_TIMEOUT_MS / 1000} s.`)),
      UPSTREAM_TIMEOUT_MS,
    );
    const onAbort = () => this.settleFailed(id, new UpstreamFailure('The client closed the connection.'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.send(message);
      return await answer;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.pending.delete(id);
    }
  }

  private async send(message: JSONRPCMessage): Promise<void> {
    try {
      await this.transport.send(message);
    } catch (err) {
      throw new UpstreamFailure(`The upstream MCP server could not be reached: ${describe(err)}`, statusOf(err));
    }
  }

  private settleFailed(id: string | number, err: UpstreamFailure): void {
    this.pending.get(id)?.reject(err);
    this.pending.delete(id);
  }

  private fail(err: UpstreamFailure): void {
    this.closed = true;
    clearTimeout(this.idleTimer);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** Closes the stream. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    await this.transport.close().catch(() => undefined);
  }
}
