import type { FastifyReply, FastifyRequest } from 'fastify';
import { isObject } from '../../../foundation/lib/json.js';
import { recordCompletion } from '../../pipeline/record-completion.js';
import { sendEventStream } from '../../pipeline/send-event-stream.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import type { Usage } from '../../../foundation/spec/chat.js';
import { RESPONSE_TERMINAL_EVENTS, type ResponseObject, type ResponsesRequest } from '../../../foundation/spec/responses.js';
import type { StoredResponse } from '../../../infra/store/repos/responses.js';
import { loadConversation, toNativeInput } from './load-conversation.js';
import { normalizeInputItems } from './normalize-input-items.js';
import { chatUsage } from './response-object.js';
import { routeThroughGateway, type PreparedRequest } from '../../pipeline/route-through-gateway.js';
import { saveResponseSafely } from './save-response.js';

/**
 * The native path: the body goes through the routing engine as endpoint `responses` to a host that
 * serves the Responses API. A `previous_response_id` the gateway ran itself (over chat) is expanded into
 * the earlier turns, since the host does not know it (answers still name it in `previous_response_id`); any
 * other id is forwarded. The host's response
 * object (or the one in its terminal stream event) is stored with the request's input items, before
 * the client receives its last event.
 */
export async function createNativeResponse(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  p: PreparedRequest,
  body: ResponsesRequest,
  previous: StoredResponse | undefined,
): Promise<void> {
  const forward: Record<string, unknown> = { ...body };
  const expanded = previous?.mode === 'gateway';
  if (expanded) {
    const history = toNativeInput(await loadConversation(deps.store, previous, previous.id));
    forward.input = [...history, ...(typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? []))];
    delete forward.previous_response_id;
  }
  const inputItems = normalizeInputItems(body.input ?? []);
  const { outcome, trace, dp } = await routeThroughGateway(deps, request, reply, p, 'responses', forward);
  const save = (value: unknown): Promise<void> => {
    if (body.store === false || !isObject(value) || typeof value.id !== 'string') return Promise.resolve();
    const response = value as ResponseObject;
    return saveResponseSafely(deps, {
      id: response.id,
      workspace_id: dp.ctx.workspaceId,
      mode: 'native',
      provider: trace.provider ?? null,
      previous_response_id: body.previous_response_id ?? null,
      status: response.status ?? 'completed',
      response,
      input_items: inputItems,
      created_at: Date.now(),
    });
  };
  // The host never saw the id it was expanded from: answers name it again, as the client sent it.
  const renamePrevious = (value: unknown) => {
    if (expanded && isObject(value)) value.previous_response_id = body.previous_response_id;
  };
  if (outcome.json) {
    const json = outcome.json;
    const value = json.value;
    renamePrevious(value);
    await save(value);
    if (outcome.extra || expanded) json.replace({ ...(value as object), ...outcome.extra });
    reply.raw.once('finish', () => {
      recordCompletion(deps, dp, {
        status: outcome.status,
        outcome,
        trace,
        usage: isObject(value) ? chatUsage(value.usage) : undefined,
        latencyMs: Date.now() - dp.ctx.startedAt,
      });
    });
    return reply.code(outcome.status).header('content-type', 'application/json').send(json.bytes);
  }
  const stream = outcome.stream!;
  let pending: Promise<void> | undefined;
  let usage: Usage | undefined;
  stream.observe({
    onChunk: (ev) => {
      renamePrevious(ev.response);
      if (typeof ev.type !== 'string' || !RESPONSE_TERMINAL_EVENTS.has(ev.type) || !isObject(ev.response)) return;
      usage = chatUsage(ev.response.usage);
      pending = save(ev.response);
    },
    onEnd: (ok, error) => {
      recordCompletion(deps, dp, {
        status: ok ? outcome.status : (error?.status ?? 500),
        outcome,
        error,
        trace,
        usage,
        latencyMs: Date.now() - dp.ctx.startedAt,
      });
    },
  });
  async function* bytes(): AsyncGenerator<Uint8Array> {
    for await (const b of stream) {
      if (pending) {
        await pending;
        pending = undefined;
      }
      yield b;
    }
  }
  return sendEventStream(reply, outcome.status, bytes());
}
