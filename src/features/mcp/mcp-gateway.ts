import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { toGatewayError } from '../../foundation/errors/to-gateway-error.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import { refreshMappedSecrets } from '../../data-plane/pipeline/upstream-headers.js';
import type { Principal } from '../../kernel/principal.js';
import {
  deleteIdleMcpSessions,
  deleteMcpSession,
  getMcpSession,
  insertMcpSession,
  setMcpUpstreamSession,
  touchMcpSession,
  type McpSession,
} from '../../infra/store/repos/mcp.js';
import type { McpRoute } from './mcp-section.js';
import { assertAccess, principalOfRequest, routeOf, sessionBelongsTo, stateOf, targetOf } from './mcp-context.js';
import { CONNECTION_REQUIRED, authorizationUrlOf, isConnectionRequired } from './oauth/connection-tokens.js';
import { closeUpstreamOAuth, upstreamOAuth, type UpstreamOAuth } from './oauth/upstream-oauth.js';
import { RPC, methodOf, rpcError, rpcErrorResponse } from './rpc-answers.js';
import { filterToolList, toolAllowed } from './tool-filter.js';
import { admitToolCall, recordToolCall, toolCallRequest } from './tool-call-log.js';
import { UpstreamFetch } from './upstream-fetch.js';
import { SseLink, UpstreamFailure, exchangeOverHttp, terminateOverHttp, type Relay, type UpstreamTarget } from './upstream-link.js';
import { relayEventStream, type UpstreamStream } from './relay-event-stream.js';
import { PRIMED_ADOPT_MS, PrimedSessionStreams } from './primed-session-streams.js';
import { MAX_BODY_JSON_DEPTH, nestsDeeperThan } from '../../foundation/lib/json-depth.js';

/** A session unused this long is over (404: the client starts a new one). */
export const SESSION_IDLE_TTL_MS = 24 * 3_600_000;

/** `last_used_at` is written at most this often per session (one write, not one per message). */
const TOUCH_EVERY_MS = 5 * 60_000;

/** Idle sessions are swept at most this often per replica (on an `initialize`). */
const SWEEP_EVERY_MS = 60_000;

/** One POST's view: the route, the principal, its session (absent for `initialize`), the abort of the client. */
interface PostContext {
  request: FastifyRequest;
  route: McpRoute;
  principal: Principal;
  session?: McpSession;
  signal: AbortSignal;
  /** The user's upstream access token (`auth_type: oauth` routes). */
  bearer?: string;
}

/** The web Request the SDK's server transport reads, built from Fastify's (the body kept as received). */
function webRequest(request: FastifyRequest, body?: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(request.headers)) {
    if (v === undefined) continue;
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  return new Request(`http://gateway${request.url}`, { method: request.method, headers, body: body ?? null });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Parses a body for routing decisions only (the SDK transport parses and validates it again); undefined when it is not JSON. */
function peek(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * A request answered as an event stream: a tool call (it may send progress notifications or ask the
 * client something before it ends) or any request carrying a progress token. Others get one JSON answer.
 */
function wantsStream(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) =>
      isJSONRPCRequest(m) &&
      (m.method === 'tools/call' || (m.params?._meta as { progressToken?: unknown } | undefined)?.progressToken !== undefined),
  );
}

/** The JSON-RPC error of a request that needs the user's upstream OAuth connection: `data` names the code and the URL to complete. */
function connectionRequiredError(id: RequestId, err: GatewayError): JSONRPCResponse {
  const url = authorizationUrlOf(err);
  return rpcError(id, RPC.serverError, err.message, {
    status: err.status,
    code: CONNECTION_REQUIRED,
    ...(url ? { authorization_url: url } : {}),
  });
}

/**
 * The answer to a POST whose user has no usable upstream OAuth connection: a JSON-RPC error per request
 * of the body (HTTP 200, so MCP clients read `data.authorization_url`), one object for a single request,
 * an array for a batch. Undefined when the body holds no request (it is refused with HTTP 403 instead).
 */
function connectionRequiredAnswer(messages: unknown[], err: GatewayError): Response | undefined {
  const errors = messages.filter((m): m is JSONRPCRequest => isJSONRPCRequest(m)).map((m) => connectionRequiredError(m.id, err));
  if (errors.length === 0) return undefined;
  return new Response(JSON.stringify(messages.length === 1 ? errors[0] : errors), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * The MCP gateway endpoint `/v1/mcp/{slug}/mcp` (docs/mcp.md). Clients speak Streamable HTTP to it (the
 * SDK's server transport, one per HTTP request); each message goes upstream over Streamable HTTP (a
 * transport per exchange, carrying the stored upstream session) or the older SSE transport (one stream
 * per session and replica, reopened by replaying `initialize` on another replica). Sessions are rows of
 * the store, so any replica serves any message of a session.
 */
export class McpGateway {
  private readonly fetcher: UpstreamFetch;
  private readonly links = new Map<string, Promise<SseLink>>();
  /** The open session streams (GET) of this replica, by the abort that ends each. */
  private readonly sessionStreams = new Set<AbortController>();
  private lastSweep = 0;
  private readonly oauth: UpstreamOAuth;
  /** Session streams opened upstream at `notifications/initialized`, until the client's `GET` takes them. */
  private readonly primed = new PrimedSessionStreams((session, dropped) =>
    this.deps.logger.warn({ session, dropped }, 'MCP session stream: upstream messages dropped before the client connected (buffer full)'),
  );

  constructor(private readonly deps: GatewayDeps) {
    this.fetcher = new UpstreamFetch(deps.http.outbound, deps.settings.upstreamConnectTimeoutMs, deps.settings.upstreamHeadersTimeoutMs);
    this.oauth = upstreamOAuth(deps);
  }

  /** `POST`: one JSON-RPC message or a batch. */
  async post(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const route = routeOf(this.deps, request);
    const principal = principalOfRequest(request);
    assertAccess(route, principal);
    const raw = typeof request.body === 'string' ? request.body : '';
    // As the gateway's JSON parser does for every other route: the SDKs' validation and serialisation recurse, and would overflow.
    if (nestsDeeperThan(raw, MAX_BODY_JSON_DEPTH))
      return void (await reply.send(rpcErrorResponse(400, RPC.parseError, 'The request is nested too deeply.')));
    const body = peek(raw);
    const messages = Array.isArray(body) ? body : [body];
    let bearer: string | undefined;
    try {
      bearer = await this.oauth.tokens.bearer(route, principal, request);
    } catch (err) {
      const answer = isConnectionRequired(err) ? connectionRequiredAnswer(messages, err) : undefined;
      if (answer) return void (await reply.send(answer));
      throw err;
    }
    const initializing = messages.some((m) => isInitializeRequest(m));
    let session: McpSession | undefined;
    if (!initializing && body !== undefined) {
      const found = await this.session(request, route, principal);
      if (found instanceof Response) return void (await reply.send(found));
      session = found;
    }
    const abort = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const ctx: PostContext = { request, route, principal, session, signal: abort.signal, bearer };
    // `initialize` is answered as JSON: its answer must wait for the stored session, whose id goes in a header.
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: initializing || !wantsStream(body) });
    const work: Promise<void>[] = [];
    let created: string | undefined;
    transport.onmessage = (message) => {
      const job = !isJSONRPCRequest(message)
        ? this.notify(ctx, message)
        : isInitializeRequest(message)
          ? this.initialize(ctx, transport, message, (id) => (created = id))
          : this.request(ctx, transport, message);
      work.push(
        job.catch((err: unknown) =>
          this.deps.logger.warn({ err: String(err), server: route.server.slug, method: methodOf(message) }, 'MCP message failed'),
        ),
      );
    };
    await transport.start();
    const res = await transport.handleRequest(webRequest(request, raw));
    // Notifications and responses are answered 202 once they reached the upstream, so a client's next
    // request (on any replica) never overtakes them.
    if (res.status === 202) await Promise.all(work);
    if (created === undefined) return void (await reply.send(res));
    const headers = new Headers(res.headers);
    headers.set('mcp-session-id', created);
    await reply.send(new Response(res.body, { status: res.status, headers }));
  }

  /** `GET`: the session's stream of upstream messages unrelated to a request (Streamable HTTP upstreams). */
  async get(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const route = routeOf(this.deps, request);
    const principal = principalOfRequest(request);
    assertAccess(route, principal);
    const bearer = await this.oauth.tokens.bearer(route, principal, request);
    const session = await this.session(request, route, principal);
    if (session instanceof Response) return void (await reply.send(session));
    if (route.integration.transport !== 'http')
      return void (await reply.send(
        rpcErrorResponse(405, RPC.serverError, 'This MCP server has no session stream (its upstream uses the SSE transport).'),
      ));
    const primed = this.primed.take(session.id);
    const abort = primed?.abort ?? new AbortController();
    this.sessionStreams.add(abort);
    reply.raw.once('close', () => {
      this.sessionStreams.delete(abort);
      abort.abort();
    });
    let upstream = primed?.stream ?? (await this.openSessionStream(await targetOf(this.deps, route, bearer), session, abort.signal));
    // An `oauth` upstream refusing the user's token: one renewal and one retry, as for POST (never a 401 to the client).
    if (upstream instanceof Response && upstream.status === 401 && bearer !== undefined && principal.userId !== null) {
      const renewed = await this.oauth.tokens.renew(route, principal, request, bearer);
      upstream = await relayEventStream(this.fetcher, await targetOf(this.deps, route, renewed), stateOf(session), abort.signal);
      if (upstream instanceof Response && upstream.status === 401)
        throw await this.oauth.tokens.required(
          route,
          principal.userId,
          request,
          'was refused by its upstream even with your renewed OAuth token',
        );
    }
    if (upstream instanceof Response) return void (await reply.send(upstream));
    const transport = new WebStandardStreamableHTTPServerTransport({});
    await transport.start();
    const res = await transport.handleRequest(webRequest(request));
    upstream.pipe(
      (m) => void transport.send(m).catch(() => undefined),
      () => void transport.close(),
    );
    await reply.send(res);
  }

  /** `DELETE`: ends the session here and upstream. */
  async delete(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const route = routeOf(this.deps, request);
    const principal = principalOfRequest(request);
    const session = await this.session(request, route, principal);
    if (session instanceof Response) return void (await reply.send(session));
    await deleteMcpSession(this.deps.store, session.id);
    this.primed.release(session.id);
    const link = this.links.get(session.id);
    this.links.delete(session.id);
    try {
      if (link) await (await link).close();
      else if (route.integration.transport === 'http')
        await terminateOverHttp(
          this.fetcher,
          await targetOf(this.deps, route, await this.oauth.tokens.bearer(route, principal, request).catch(() => undefined)),
          stateOf(session),
        );
    } catch (err) {
      this.deps.logger.warn({ err: String(err), server: route.server.slug }, 'MCP upstream session did not end cleanly');
    }
    await reply.code(200).send();
  }

  /**
   * Ends this replica's open session streams (at shutdown, before the server waits for its requests): a
   * session stream carries no request and lasts as long as the client keeps it, so the server would wait for
   * it; the client opens it again (on another replica). Their upstream streams are aborted with them.
   */
  endSessionStreams(): void {
    this.primed.releaseAll();
    for (const abort of this.sessionStreams) abort.abort();
    this.sessionStreams.clear();
  }

  /** Closes the upstream connections of this replica. */
  async close(): Promise<void> {
    this.primed.releaseAll();
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map((l) => l.then((x) => x.close()).catch(() => undefined)));
    await this.fetcher.close();
    await closeUpstreamOAuth(this.deps);
  }

  /**
   * The stored session the request names: 400 without `Mcp-Session-Id`, 404 (JSON-RPC `-32001`) for
   * an unknown one or one of another principal, as the transport specification asks.
   */
  private async session(request: FastifyRequest, route: McpRoute, principal: Principal): Promise<McpSession | Response> {
    const id = header(request, 'mcp-session-id');
    if (!id) return rpcErrorResponse(400, RPC.serverError, 'Bad Request: Mcp-Session-Id header is required.');
    const session = await getMcpSession(this.deps.store, route.server.id, id);
    if (!session || !sessionBelongsTo(session, principal)) return rpcErrorResponse(404, RPC.sessionNotFound, 'Session not found.');
    const now = this.deps.clock.now();
    if (now - session.last_used_at > SESSION_IDLE_TTL_MS) {
      await deleteMcpSession(this.deps.store, session.id);
      this.dropLink(session.id);
      return rpcErrorResponse(404, RPC.sessionNotFound, 'Session not found (expired after 24 hours unused).');
    }
    if (now - session.last_used_at > TOUCH_EVERY_MS) await touchMcpSession(this.deps.store, session.id, now);
    return session;
  }

  /**
   * `initialize`: opens the upstream session, stores ours, answers the upstream's result. `created` gets
   * the session id before the answer is handed to the transport (which may end the HTTP answer at once).
   */
  private async initialize(
    ctx: PostContext,
    transport: WebStandardStreamableHTTPServerTransport,
    message: JSONRPCRequest,
    created: (id: string) => void,
  ): Promise<void> {
    const relay = (m: JSONRPCMessage) => void transport.send(m, { relatedRequestId: message.id }).catch(() => undefined);
    const id = randomUUID();
    let answer: JSONRPCResponse | undefined;
    let upstreamSessionId: string | null = null;
    try {
      if (ctx.route.integration.transport === 'http') {
        const out = await this.withRenewal(ctx, async () =>
          this.retryRefusedSecrets(ctx, await targetOf(this.deps, ctx.route, ctx.bearer), (t) =>
            exchangeOverHttp(this.fetcher, t, { upstreamSessionId: null, protocolVersion: null }, message, relay, ctx.signal),
          ),
        );
        answer = out.answer;
        upstreamSessionId = out.upstreamSessionId;
      } else {
        answer = await this.withRenewal(
          ctx,
          async () =>
            this.retryRefusedSecrets(
              ctx,
              await targetOf(this.deps, ctx.route, ctx.bearer),
              async (t) => (await this.keepLink(id, SseLink.open(this.fetcher, t))).exchange(message, relay, ctx.signal),
              () => this.dropLink(id),
            ),
          () => this.dropLink(id),
        );
      }
    } catch (err) {
      this.dropLink(id);
      await transport.send(this.failure(message, err));
      return;
    }
    if (!answer || !isJSONRPCResultResponse(answer)) {
      this.dropLink(id);
      await transport.send(answer ?? rpcError(message.id, RPC.internalError, 'The upstream MCP server did not answer initialize.'));
      return;
    }
    const version =
      typeof answer.result.protocolVersion === 'string' ? answer.result.protocolVersion : String(message.params?.protocolVersion ?? '');
    const now = this.deps.clock.now();
    await insertMcpSession(this.deps.store, {
      id,
      server_id: ctx.route.server.id,
      workspace_id: ctx.route.server.workspace_id,
      key_id: ctx.principal.keyId,
      user_id: ctx.principal.userId,
      upstream_session_id: upstreamSessionId,
      protocol_version: version,
      initialize_params: JSON.stringify(message.params ?? {}),
      created_at: now,
      last_used_at: now,
    });
    created(id);
    await transport.send(answer);
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await deleteIdleMcpSessions(this.deps.store, now - SESSION_IDLE_TTL_MS).catch((err: unknown) =>
        this.deps.logger.warn({ err: String(err) }, 'MCP session sweep failed'),
      );
    }
  }

  /**
   * A notification or response forwarded upstream. Before `notifications/initialized` (after which an upstream may
   * send the client requests), the session's upstream stream is opened, so that nothing it sends is lost while the
   * client's own `GET` is still on its way.
   */
  private async notify(ctx: PostContext, message: JSONRPCMessage): Promise<void> {
    if (ctx.session && ctx.route.integration.transport === 'http' && methodOf(message) === 'notifications/initialized') {
      const session = ctx.session;
      const target = await targetOf(this.deps, ctx.route, ctx.bearer).catch(() => undefined);
      if (target) await this.primed.prime(session.id, (signal) => relayEventStream(this.fetcher, target, stateOf(session), signal));
    }
    await this.forward(ctx, message, () => undefined);
  }

  /**
   * Opens the upstream session stream for a client's `GET`. An upstream allowing one stream per session answers 409
   * while another replica holds the one it primed: tried again until that one is released (`PRIMED_ADOPT_MS`).
   */
  private async openSessionStream(target: UpstreamTarget, session: McpSession, signal: AbortSignal): Promise<UpstreamStream | Response> {
    const until = Date.now() + PRIMED_ADOPT_MS + 1_000;
    for (;;) {
      const upstream = await relayEventStream(this.fetcher, target, stateOf(session), signal);
      if (!(upstream instanceof Response) || upstream.status !== 409 || signal.aborted || Date.now() > until) return upstream;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** A request other than `initialize`: filtered (`tools/list`, `tools/call`), forwarded, answered. */
  private async request(ctx: PostContext, transport: WebStandardStreamableHTTPServerTransport, message: JSONRPCRequest): Promise<void> {
    const relay: Relay = (m) => void transport.send(m, { relatedRequestId: message.id }).catch(() => undefined);
    if (message.method === 'tools/call') return transport.send(await this.callTool(ctx, message, relay));
    let answer: JSONRPCResponse;
    try {
      answer =
        (await this.forward(ctx, message, relay)) ?? rpcError(message.id, RPC.internalError, 'The upstream MCP server did not answer.');
    } catch (err) {
      answer = this.failure(message, err);
    }
    if (message.method === 'tools/list' && isJSONRPCResultResponse(answer)) {
      const { result, collision } = filterToolList(ctx.route.server.tools, answer.result);
      answer =
        collision === undefined
          ? { ...answer, result }
          : rpcError(
              message.id,
              RPC.internalError,
              `The upstream MCP server lists two tools named '${collision}'; the gateway refuses colliding tool names.`,
            );
    }
    await transport.send(answer);
  }

  /**
   * `tools/call`: a tool the server's filter does not allow is refused here and never reaches the
   * upstream; an allowed one passes the limits (rate and usage policies with `endpoint_type: mcp`), is
   * forwarded, and is logged with its status and latency, its arguments redacted.
   */
  private async callTool(ctx: PostContext, message: JSONRPCRequest, relay: Relay): Promise<JSONRPCResponse> {
    const started = Date.now();
    const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
    const server = ctx.route.server;
    if (typeof params.name !== 'string' || params.name.length === 0)
      return rpcError(message.id, RPC.invalidParams, 'tools/call needs params.name (the tool to call).');
    const tool = params.name;
    const dp = toolCallRequest(ctx.request, server, tool, params.arguments);
    // GenAI semantic conventions for tools: one CLIENT span per call, `execute_tool {tool}` (arguments never recorded).
    const span = ctx.request.gw.span?.child(`execute_tool ${tool}`, 'client', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool,
      'gateway.mcp.server': server.slug,
      'rpc.system': 'jsonrpc',
      'rpc.method': 'tools/call',
    });
    const record = (status: number, error?: GatewayError) => {
      if (span) {
        span.set({ 'http.response.status_code': status });
        if (error) span.fail(error.code, error.message);
        span.end();
      }
      recordToolCall(this.deps, dp, server, tool, status, started, error);
    };
    if (!toolAllowed(server.tools, tool)) {
      const refusal = new GatewayError('forbidden', `Tool '${tool}' is not available on MCP server '${server.slug}'.`);
      record(refusal.status, refusal);
      return rpcError(message.id, RPC.invalidParams, refusal.message);
    }
    try {
      await admitToolCall(this.deps, dp);
    } catch (err) {
      const g = toGatewayError(err);
      record(g.status, g);
      return rpcError(message.id, RPC.serverError, g.message, { status: g.status, code: g.code });
    }
    let answer: JSONRPCResponse;
    let status = 200;
    let error: GatewayError | undefined;
    try {
      answer =
        (await this.forward(ctx, message, relay)) ?? rpcError(message.id, RPC.internalError, 'The upstream MCP server did not answer.');
      if (!isJSONRPCResultResponse(answer)) {
        status = 502;
        error = new GatewayError(
          'provider_error',
          `The upstream MCP server answered tools/call with an error (${(answer as { error: { code: number } }).error.code}).`,
        );
      }
    } catch (err) {
      answer = this.failure(message, err);
      error = isConnectionRequired(err) ? err : new GatewayError('provider_unreachable', err instanceof Error ? err.message : String(err));
      status = error.status;
    }
    record(status, error);
    return answer;
  }

  /** Sends a message upstream within the session (reopening an SSE upstream on this replica when needed). */
  private async forward(ctx: PostContext, message: JSONRPCMessage, relay: Relay): Promise<JSONRPCResponse | undefined> {
    const session = ctx.session;
    if (!session) throw new UpstreamFailure('No session.');
    return this.withRenewal(
      ctx,
      async () => {
        const target = await targetOf(this.deps, ctx.route, ctx.bearer);
        if (target.transport === 'http')
          return (
            await this.retryRefusedSecrets(ctx, target, (t) =>
              exchangeOverHttp(this.fetcher, t, stateOf(session), message, relay, ctx.signal),
            )
          ).answer;
        return this.retryRefusedSecrets(
          ctx,
          target,
          async (t) => (await this.sseLink(session, t)).exchange(message, relay, ctx.signal),
          () => this.dropLink(session.id),
        );
      },
      () => this.dropLink(session.id),
    );
  }

  /**
   * Runs an upstream exchange; when an `oauth` upstream answers 401, renews the user's token once (the
   * newer token of a refresh made meanwhile, else one refresh) and runs it again. A second 401, or a
   * connection that cannot be renewed, is the connection-required refusal with an authorization URL.
   */
  private async withRenewal<T>(ctx: PostContext, run: () => Promise<T>, beforeRetry?: () => void): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof UpstreamFailure) || err.status !== 401 || ctx.bearer === undefined || ctx.principal.userId === null) throw err;
      ctx.bearer = await this.oauth.tokens.renew(ctx.route, ctx.principal, ctx.request, ctx.bearer);
      beforeRetry?.();
      try {
        return await run();
      } catch (again) {
        if (again instanceof UpstreamFailure && again.status === 401)
          throw await this.oauth.tokens.required(
            ctx.route,
            ctx.principal.userId,
            ctx.request,
            'was refused by its upstream even with your renewed OAuth token',
          );
        throw again;
      }
    }
  }

  /**
   * Runs one upstream exchange (Streamable HTTP, or a message on an SSE stream); when the upstream refuses
   * (401, 403) headers filled from the integration's secret mappings, fetches those references anew once and
   * runs it again with what they hold now (a credential rotated in its secret manager), after `beforeRetry`
   * (an SSE stream opened with the old headers is dropped: the retry opens a new one). The refused request
   * never ran upstream.
   */
  private async retryRefusedSecrets<T>(
    ctx: PostContext,
    target: UpstreamTarget,
    run: (t: UpstreamTarget) => Promise<T>,
    beforeRetry?: () => void,
  ): Promise<T> {
    try {
      return await run(target);
    } catch (err) {
      const mappings = ctx.route.integration.secret_mappings;
      if (!(err instanceof UpstreamFailure) || (err.status !== 401 && err.status !== 403) || mappings.length === 0) throw err;
      await refreshMappedSecrets(this.deps, mappings);
      beforeRetry?.();
      return run(await targetOf(this.deps, ctx.route, ctx.bearer));
    }
  }

  /**
   * The SSE upstream of a session on this replica: the open one, or a new stream on which the client's
   * `initialize` is replayed (a session begun on another replica, or whose stream closed).
   */
  private async sseLink(session: McpSession, target: UpstreamTarget): Promise<SseLink> {
    const existing = this.links.get(session.id);
    if (existing) {
      const link = await existing.catch(() => undefined);
      if (link?.live) return link;
      this.links.delete(session.id);
    }
    const opening = (async () => {
      const link = await SseLink.open(this.fetcher, target);
      const init = {
        jsonrpc: '2.0' as const,
        id: `gateway-reinit-${randomUUID()}`,
        method: 'initialize',
        params: JSON.parse(session.initialize_params) as Record<string, unknown>,
      };
      const answer = await link.exchange(init, () => undefined);
      if (!answer || !isJSONRPCResultResponse(answer)) {
        await link.close();
        throw new UpstreamFailure('The upstream MCP server refused to reopen the session.');
      }
      await link.exchange({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => undefined);
      await setMcpUpstreamSession(this.deps.store, session.id, null, this.deps.clock.now());
      return link;
    })();
    return this.keepLink(session.id, opening);
  }

  /**
   * Holds a session's SSE upstream on this replica (dropped when it fails to open), closed once it has been
   * unused for `GATEWAY_MCP_SESSION_IDLE_TTL_S`: a client may leave without `DELETE`.
   */
  private keepLink(id: string, opening: Promise<SseLink>): Promise<SseLink> {
    this.links.set(id, opening);
    const forget = () => {
      if (this.links.get(id) === opening) this.links.delete(id);
    };
    opening.then((link) => link.closeWhenIdle(this.deps.settings.mcpSessionIdleTtlMs, forget), forget);
    return opening;
  }

  private dropLink(id: string): void {
    const link = this.links.get(id);
    this.links.delete(id);
    link?.then((l) => l.close()).catch(() => undefined);
  }

  /** The JSON-RPC answer of a request whose upstream failed (never a hang, never a 500 page). */
  private failure(message: JSONRPCRequest, err: unknown): JSONRPCResponse {
    if (isConnectionRequired(err)) return connectionRequiredError(message.id, err);
    // A gateway fault before the upstream was called (a secret mapping that cannot be resolved): its status and code.
    if (err instanceof GatewayError) return rpcError(message.id, RPC.serverError, err.message, { status: err.status, code: err.code });
    const text =
      err instanceof UpstreamFailure ? err.message : `The upstream MCP server failed: ${err instanceof Error ? err.message : String(err)}`;
    return rpcError(
      message.id,
      RPC.serverError,
      text,
      err instanceof UpstreamFailure && err.status !== undefined ? { upstream_status: err.status } : undefined,
    );
  }
}
