import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { toGatewayError } from '../../../foundation/errors/to-gateway-error.js';
import { randomId } from '../../../foundation/lib/ids.js';
import { SSE_DONE, sseData } from '../../../foundation/lib/sse.js';
import { recordCompletion } from '../../pipeline/record-completion.js';
import { readChatChunks } from '../../pipeline/read-chat-chunks.js';
import { sendEventStream } from '../../pipeline/send-event-stream.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import type { ChatCompletion } from '../../../foundation/spec/chat.js';
import type { ResponseObject, ResponsesRequest } from '../../../foundation/spec/responses.js';
import type { StoredResponse } from '../../../infra/store/repos/responses.js';
import { ChatStreamToResponseEvents } from './chat-stream-to-response-events.js';
import { fitToContextWindow } from './context-window.js';
import { convertToChatRequest } from './convert-to-chat-request.js';
import { loadConversation } from './load-conversation.js';
import { mapChatToResponse } from './map-chat-to-response.js';
import { normalizeInputItems } from './normalize-input-items.js';
import { baseResponse, responseError } from './response-object.js';
import { routeThroughGateway, type PreparedRequest } from '../../pipeline/route-through-gateway.js';
import { saveResponseSafely } from './save-response.js';

/**
 * The gateway-run path for providers without a native Responses API: earlier turns (by
 * `previous_response_id`) and this input become chat messages, `truncation` is applied against the
 * model's context window, the chat request goes through the routing engine as endpoint `chat`, and the
 * answer (or its chunks, as Responses stream events) becomes a response object, stored before the
 * client gets it: `completed`, `incomplete` (finish reason `length` or `content_filter`) or `failed`
 * (the provider failed; a non-streamed failure still answers with the provider's error status and
 * names the stored response in `x-gateway-response-id`).
 */
export async function createResponseOverChat(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  p: PreparedRequest,
  body: ResponsesRequest,
  previous: StoredResponse | undefined,
): Promise<void> {
  const history =
    typeof body.previous_response_id === 'string' ? await loadConversation(deps.store, previous, body.previous_response_id) : [];
  const inputItems = normalizeInputItems(body.input ?? []);
  const chat = convertToChatRequest(body, [...history, ...inputItems]);
  chat.messages = await fitToContextWindow(chat.messages, body.model, body.truncation ?? 'disabled');
  const id = `resp_${randomId(40)}`;
  const base = baseResponse(body, id, Math.floor(deps.clock.now() / 1000));
  const save = (response: ResponseObject, provider: string | undefined) =>
    body.store === false
      ? Promise.resolve()
      : saveResponseSafely(deps, {
          id,
          workspace_id: p.dp.ctx.workspaceId,
          mode: 'gateway',
          provider: provider ?? null,
          previous_response_id: body.previous_response_id ?? null,
          status: response.status,
          response,
          input_items: inputItems,
          created_at: deps.clock.now(),
        });
  let routed: Awaited<ReturnType<typeof routeThroughGateway>>;
  try {
    routed = await routeThroughGateway(deps, request, reply, p, 'chat', chat as unknown as Record<string, unknown>);
  } catch (err) {
    const g = toGatewayError(err);
    if (g.provider && body.store !== false) {
      await save({ ...base, status: 'failed', error: responseError(g) }, g.provider);
      reply.header('x-gateway-response-id', id);
    }
    throw g;
  }
  const { outcome, trace, dp } = routed;
  reply.header('x-gateway-response-id', id);
  if (outcome.json) {
    const value = outcome.json.value as ChatCompletion;
    const response = mapChatToResponse(value, base);
    await save(response, trace.provider);
    reply.raw.once('finish', () => {
      recordCompletion(deps, dp, { status: outcome.status, outcome, trace, usage: value.usage, latencyMs: Date.now() - dp.ctx.startedAt });
    });
    const answer = outcome.extra ? { ...response, ...outcome.extra } : response;
    return reply.code(outcome.status).header('content-type', 'application/json').send(JSON.stringify(answer));
  }
  const events = new ChatStreamToResponseEvents(base);
  const reader = readChatChunks(deps, routed);
  async function* frames(): AsyncGenerator<Uint8Array> {
    try {
      for (const ev of events.start()) yield sseData(ev);
      for await (const batch of reader.batches()) for (const c of batch) for (const ev of events.push(c)) yield sseData(ev);
      const failure = reader.failure;
      const last = failure ? events.fail(failure) : events.end();
      await save(last.response, trace.provider);
      reader.account(failure ? failure.status : outcome.status, failure);
      for (const ev of last.events) yield sseData(ev);
      yield SSE_DONE;
    } finally {
      reader.account(499, new GatewayError('client_closed_request'));
    }
  }
  return sendEventStream(reply, outcome.status, frames());
}
