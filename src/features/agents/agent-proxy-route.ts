import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { toGatewayError } from '../../foundation/errors/to-gateway-error.js';
import { discardBody, readBodyText, toUpstreamError, type UpstreamResponse } from '../../foundation/lib/http-client.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import { LazyAbort } from '../../foundation/lib/lazy-abort.js';
import { SseDecoder, sseData } from '../../foundation/lib/sse.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import type { DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import { refreshMappedSecrets, upstreamHeadersOf } from '../../data-plane/pipeline/upstream-headers.js';
import type { RouteTrace } from '../../routing/outcome.js';
import { CustomHostGuard } from '../../routing/custom-host-guard.js';
import { sectionOf } from '../../runtime/snapshot.js';
import type { AuthKey } from '../../runtime/snapshot.js';
import { readGatewayHeaders } from '../../data-plane/pipeline/read-gateway-headers.js';
import { requestDefaults } from '../../data-plane/pipeline/request-defaults.js';
import { recordCompletion } from '../../data-plane/pipeline/record-completion.js';
import { sendEventStream } from '../../data-plane/pipeline/send-event-stream.js';
import type { AgentServer } from '../../infra/store/repos/agent-servers.js';
import { AGENT_SERVERS_SECTION, agentKey, type AgentServersSection } from './agent-servers-section.js';
import type { A2AVersion } from './a2a-methods.js';
import { RPC, idOf, rpcError, type JsonRpcError, type JsonRpcId } from './jsonrpc.js';
import { skillOfParams, taskIdOfResult, taskIdsOfParams } from './read-task-ids.js';
import type { TaskOwners } from './task-owners.js';
import type { GatewaySpan } from '../../infra/observability/tracing.js';

const Params = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 128 }) });

/** Request headers passed on to the agent server (the protocol version and extensions the caller chose). */
const PASSED = ['a2a-version', 'a2a-extensions', 'x-a2a-extensions'] as const;

/** Who a task belongs to: the user of a console session, else the key that made the call. */
function ownerOf(key: AuthKey | undefined): string {
  if (key?.session && key.user) return `user:${key.user.id}`;
  return `key:${key?.id ?? ''}`;
}

/** One call on its way through the proxy. */
interface Call {
  deps: GatewayDeps;
  owners: TaskOwners;
  request: FastifyRequest;
  reply: FastifyReply;
  server: AgentServer;
  dp: DataPlaneRequest;
  trace: RouteTrace;
  id: JsonRpcId;
  version: A2AVersion;
  owner: string;
  /** The call's `invoke_agent` CLIENT span when tracing is on. */
  span?: GatewaySpan;
  /** How long the agent server may take: `x-gateway-request-timeout` when the caller sent one, else `GATEWAY_AGENT_TIMEOUT_MS`. */
  timeoutMs: number;
  /** The caller sent `x-gateway-request-timeout`: the whole call is bounded by it, as the data plane bounds a request. */
  bounded: boolean;
  /** The whole call's deadline (with `bounded`, set once the call is forwarded). */
  deadline?: { timer: NodeJS.Timeout; passed: boolean };
}

/** Accounts for the call (request log with `endpoint` `agents`, metrics, the hooks' `after`). */
function finish(c: Call, status: number, error?: GatewayError): void {
  if (c.deadline) clearTimeout(c.deadline.timer);
  if (c.span) {
    c.span.set({ 'http.response.status_code': status });
    if (error) c.span.fail(error.code, error.message);
    c.span.end();
  }
  recordCompletion(c.deps, c.dp, { status, error, trace: c.trace, latencyMs: Date.now() - c.dp.ctx.startedAt });
}

/** Answers a JSON-RPC error (HTTP 200, as JSON-RPC over HTTP does) and logs the call with `status` and the gateway error. */
function refuse(c: Call, body: JsonRpcError, status = 200, error?: GatewayError): FastifyReply {
  finish(c, status, error);
  return c.reply.code(200).header('content-type', 'application/json').send(body);
}

/** The JSON-RPC error for an upstream fault (timeout, unreachable, redirect), its gateway code in `data`. */
function faultAnswer(c: Call, g: GatewayError): JsonRpcError {
  const message = g.code === 'request_timeout' ? `The agent server did not answer within ${c.timeoutMs} ms.` : g.message;
  return rpcError(c.id, RPC.internalError, message, { code: g.code });
}

/** The gateway error of an upstream fault: 408 `request_timeout` once the call's deadline passed (the abort it caused surfaces as whatever the HTTP client saw). */
function faultOf(c: Call, err: unknown): GatewayError {
  if (c.deadline?.passed)
    return new GatewayError('request_timeout', `The agent server did not answer within ${c.timeoutMs} ms.`, { provider: 'a2a' });
  return toGatewayError(err);
}

/** Starts the call's deadline: when it passes, the upstream call is aborted and answered as a timeout. */
function startDeadline(c: Call, abort: LazyAbort): void {
  const timer = setTimeout(() => {
    c.deadline!.passed = true;
    abort.abort(new Error('request timeout'));
  }, c.timeoutMs);
  c.deadline = { timer, passed: false };
}

/** Records the task a result names as the caller's (before the caller can see its id). */
async function claim(c: Call, result: unknown, seen: Set<string>): Promise<void> {
  const taskId = taskIdOfResult(c.version, result);
  if (!taskId || seen.has(taskId)) return;
  seen.add(taskId);
  try {
    await c.owners.record(c.server.id, taskId, c.owner);
  } catch (err) {
    c.deps.logger.warn(
      { err: (err as Error)?.message, agent: c.server.slug },
      'task owner could not be recorded; the caller will not see this task again',
    );
  }
}

/** Relays a non-streamed answer as it came, after claiming the task it names. */
async function relayJson(c: Call, res: UpstreamResponse): Promise<FastifyReply> {
  let text: string;
  try {
    text = await readBodyText(res, 'a2a');
  } catch (err) {
    const g = faultOf(c, err);
    return refuse(c, faultAnswer(c, g), g.status, g);
  }
  const parsed = tryParseJson(text);
  if (!isObject(parsed)) {
    const g = new GatewayError('provider_error', `The agent server answered HTTP ${res.status} without a JSON-RPC body.`, {
      status: 502,
      provider: 'a2a',
    });
    return refuse(c, rpcError(c.id, RPC.internalError, g.message, { code: g.code, status: res.status }), 502, g);
  }
  await claim(c, parsed.result, new Set());
  finish(c, res.status);
  return c.reply.code(res.status).header('content-type', 'application/json').send(text);
}

/** Relays a stream chunk by chunk; each event's task is claimed before the chunk carrying it goes out; a fault ends it with one JSON-RPC error event. */
async function relayStream(c: Call, res: UpstreamResponse): Promise<void> {
  const seen = new Set<string>();
  let failure: GatewayError | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const decoder = new SseDecoder();
    try {
      for await (const chunk of res.body) {
        for (const event of decoder.push(chunk as Buffer)) {
          const message = tryParseJson(event.data);
          if (isObject(message)) await claim(c, message.result, seen);
        }
        yield chunk as Buffer;
      }
      for (const event of decoder.end()) {
        const message = tryParseJson(event.data);
        if (isObject(message)) await claim(c, message.result, seen);
      }
    } catch (err) {
      if (c.reply.raw.destroyed) return;
      failure = faultOf(c, toUpstreamError(err, c.server.url, 'a2a', 'body'));
      yield sseData(faultAnswer(c, failure));
    }
  }
  await sendEventStream(c.reply, res.status, chunks());
  finish(c, failure ? failure.status : res.status, failure);
}

/**
 * The headers an agent server is called with: its own, overridden by its secret mappings (resolved
 * for the server's workspace; 502 naming the reference when one cannot be).
 */
export function agentHeadersOf(deps: GatewayDeps, server: AgentServer): Promise<Record<string, string>> {
  return upstreamHeadersOf(
    deps,
    server,
    { id: server.id, sealed: server.headers_sealed, secretMappings: server.secret_mappings },
    server.workspace_id,
  );
}

/**
 * Forwards the call to the agent server and relays its answer. When the agent server refuses (401,
 * 403) a call whose headers came from secret mappings, the references are fetched anew once and the
 * call is sent again with what they hold now (a credential rotated in its secret manager).
 */
async function forward(c: Call, body: Record<string, unknown>, stream: boolean): Promise<FastifyReply | void> {
  const { deps, request, reply, server } = c;
  const abort = new LazyAbort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort(new Error('client closed the connection'));
  });
  reply.header('x-gateway-provider', 'a2a');
  const timeout = c.timeoutMs;
  if (c.bounded) startDeadline(c, abort);
  const payload = JSON.stringify(body);
  const send = async (): Promise<UpstreamResponse> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream, application/json' : 'application/json',
      ...(await agentHeadersOf(deps, server)),
    };
    for (const name of PASSED) {
      const v = request.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    return deps.http.send(
      { url: server.url, method: 'POST', headers, body: payload, signal: abort, headersTimeout: timeout, bodyTimeout: timeout },
      'a2a',
    );
  };
  let res: UpstreamResponse;
  try {
    res = await send();
    if ((res.status === 401 || res.status === 403) && server.secret_mappings.length > 0) {
      discardBody(res.body);
      await refreshMappedSecrets(deps, server.secret_mappings);
      res = await send();
    }
  } catch (err) {
    const g = faultOf(c, err);
    return refuse(c, faultAnswer(c, g), g.status, g);
  }
  const type = res.headers['content-type'];
  if (typeof type === 'string' && type.includes('text/event-stream')) return relayStream(c, res);
  return relayJson(c, res);
}

/**
 * `POST /v1/agents/{slug}`: one A2A JSON-RPC call to an agent server of the caller's workspace. The
 * method is read with the `A2A-Version` the caller sent (v0.3 without one); only the proxied methods
 * pass; a send naming a skill outside the server's allow-list, or a task the caller did not create, is
 * refused as JSON-RPC errors (the latter exactly like an unknown task). The request-level hooks run
 * first (rate and usage limits match `endpoint_type: agents`); the answer is relayed as it came, a
 * stream chunk by chunk; every call is logged.
 */
async function proxyCall(
  deps: GatewayDeps,
  owners: TaskOwners,
  guard: CustomHostGuard,
  request: FastifyRequest<{ Params: { slug: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply | void> {
  // The A2A SDK (~1 MB of heap) is loaded by the first agent call, not with the gateway.
  const { METHOD_NAMES, kindOf, versionOf } = await import('./a2a-methods.js');
  const ctx = request.gw;
  const slug = request.params.slug;
  const server = sectionOf<AgentServersSection>(deps.runtime.current, AGENT_SERVERS_SECTION)?.bySlug.get(agentKey(ctx.workspaceId, slug));
  if (!server) throw new GatewayError('not_found', `Unknown agent '${slug}'.`, { param: 'slug' });
  const gh = readGatewayHeaders(request.headers, requestDefaults(ctx.key));
  const body = request.body;
  const version = versionOf(request.headers['a2a-version']);
  const method = isObject(body) && typeof body.method === 'string' ? body.method : undefined;
  const kind = version && method !== undefined ? kindOf(version, method) : undefined;
  const dp: DataPlaneRequest = {
    ctx,
    endpoint: 'agents',
    body: isObject(body) ? body : {},
    stream: kind === 'stream',
    metadata: gh.metadata,
    headers: request.headers,
    config: null,
    responseHeaders: {},
    locals: {},
  };
  const timeoutMs = gh.requestTimeoutMs ?? deps.settings.agentTimeoutMs;
  const c: Call = {
    deps,
    owners,
    request,
    reply,
    server,
    dp,
    trace: { retries: 0, attempts: [], provider: 'a2a', model: server.slug },
    id: idOf(body),
    version: version ?? '0.3',
    owner: ownerOf(ctx.key),
    timeoutMs,
    bounded: gh.requestTimeoutMs !== null,
  };
  // GenAI semantic conventions for agents: one CLIENT span per call, named `invoke_agent {agent name}`.
  c.span = ctx.span?.child(`invoke_agent ${server.name}`, 'client', {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': 'a2a',
    'gen_ai.agent.id': server.id,
    'gen_ai.agent.name': server.name,
    'gateway.agent.slug': server.slug,
    'rpc.system': 'jsonrpc',
    'rpc.method': method,
    'a2a.version': version,
  });
  // Limits first: every call to the agent counts, refused ones included (no free probing of task ids).
  try {
    for (const hook of deps.hooks) {
      const pending = hook.before?.(dp);
      if (pending) await pending;
    }
  } catch (err) {
    const g = toGatewayError(err);
    finish(c, g.status, g);
    throw g;
  }
  for (const k in dp.responseHeaders) reply.header(k, dp.responseHeaders[k]);
  if (!isObject(body) || body.jsonrpc !== '2.0' || method === undefined) {
    return refuse(
      c,
      rpcError(
        c.id,
        RPC.invalidRequest,
        Array.isArray(body)
          ? 'Batch requests are not supported by the gateway.'
          : 'The body must be one JSON-RPC 2.0 request: {"jsonrpc": "2.0", "id", "method", "params"}.',
      ),
    );
  }
  if (!version)
    return refuse(
      c,
      rpcError(
        c.id,
        RPC.versionNotSupported,
        `A2A-Version '${String(request.headers['a2a-version'])}' is not supported; the gateway speaks 0.3 and 1.0.`,
      ),
    );
  if (!kind)
    return refuse(
      c,
      rpcError(
        c.id,
        RPC.methodNotFound,
        `Method '${method}' is not available through the gateway for A2A ${version} (${METHOD_NAMES[version].join(', ')}).`,
      ),
    );
  const params = body.params;
  if (!isObject(params)) return refuse(c, rpcError(c.id, RPC.invalidParams, 'params must be an object.'));
  if (server.skills_allow !== null && (kind === 'send' || kind === 'stream')) {
    const skill = skillOfParams(params);
    if (!skill || !server.skills_allow.includes(skill)) {
      const what = skill ? `Skill '${skill}' is not allowed` : 'A skill must be named (metadata.skillId)';
      return refuse(
        c,
        rpcError(c.id, RPC.invalidParams, `${what} on agent '${server.slug}'; allowed: ${server.skills_allow.join(', ') || 'none'}.`, {
          param: 'metadata.skillId',
        }),
      );
    }
  }
  for (const taskId of taskIdsOfParams(kind, params)) {
    let owner: string | undefined;
    try {
      owner = await owners.ownerOf(server.id, taskId);
    } catch (err) {
      const g = new GatewayError('store_unavailable', 'Task ownership could not be checked; try again shortly.', { cause: err });
      return refuse(c, rpcError(c.id, RPC.internalError, g.message, { code: g.code }), g.status, g);
    }
    if (owner !== c.owner) return refuse(c, rpcError(c.id, RPC.taskNotFound, `Task not found: ${taskId}`));
  }
  try {
    await guard.check(server.url);
  } catch (err) {
    const g = toGatewayError(err);
    finish(c, g.status, g);
    throw g;
  }
  return forward(c, body, kind === 'stream');
}

/** Registers `POST /v1/agents/{slug}` (scope `agents.invoke`). */
export function registerAgentRoutes(app: FastifyInstance, deps: GatewayDeps, owners: TaskOwners): void {
  const guard = new CustomHostGuard(deps.http.outbound);
  app.post<{ Params: { slug: string } }>(
    '/v1/agents/:slug',
    {
      config: { permission: 'agents.invoke', forwardsBody: true, dataPlane: 'agents' },
      schema: { params: Params, tags: ['agents'], summary: 'Call an agent (A2A JSON-RPC 0.3 or 1.0, chosen by A2A-Version)' },
    },
    (request, reply) => proxyCall(deps, owners, guard, request, reply),
  );
}
