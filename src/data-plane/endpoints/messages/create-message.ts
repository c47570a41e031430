import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isObject } from '../../../foundation/lib/json.js';
import { recordCompletion } from '../../pipeline/record-completion.js';
import { prepareRequest, routeThroughGateway, servesNatively, type PreparedRequest } from '../../pipeline/route-through-gateway.js';
import { readChatChunks } from '../../pipeline/read-chat-chunks.js';
import { sendEventStream } from '../../pipeline/send-event-stream.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import type { ChatCompletion, ChatCompletionChunk } from '../../../foundation/spec/chat.js';
import type { MessagesRequest } from '../../../foundation/spec/messages.js';
import { ChatStreamToMessageEvents, messageEventBytes } from './chat-stream-to-message-events.js';
import { convertMessagesToChat } from './convert-messages-to-chat.js';
import { mapChatToMessage, mapMessagesUsageToChat } from './map-chat-to-message.js';
import { estimateMessageTokens } from './count-message-tokens.js';
import { loadTokenCounter } from '../../../foundation/lib/token-counter.js';

/** The client headers that choose the Messages API revision and beta features (forwarded on the native path). */
const VERSION_HEADERS = ['anthropic-version', 'anthropic-beta'];

/**
 * `POST /v1/messages`: when every target the config can reach speaks the Messages API natively, the
 * body goes through the routing engine as endpoint `messages` and the answer's bytes (or stream) come
 * back unchanged; otherwise the body becomes a chat request, goes through as endpoint `chat` (any
 * provider), and the answer (or its chunks) is mapped back into a message (or Messages stream events).
 * Routing, retries, fallbacks, cache, guardrails, limits and the request log apply either way.
 */
export async function createMessage(deps: GatewayDeps, request: FastifyRequest, reply: FastifyReply, body: MessagesRequest): Promise<void> {
  const p = prepareRequest(deps, request, reply);
  if (servesNatively(request, p, deps.targets, 'messages', body.model)) return createNative(deps, request, reply, p, body);
  return createOverChat(deps, request, reply, p, body);
}

async function createNative(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  p: PreparedRequest,
  body: MessagesRequest,
): Promise<void> {
  p.gh.forwardHeaderNames = [...(p.gh.forwardHeaderNames ?? []), ...VERSION_HEADERS];
  const { outcome, trace, dp } = await routeThroughGateway(deps, request, reply, p, 'messages', body);
  if (outcome.json) {
    const json = outcome.json;
    if (outcome.extra) json.replace({ ...(json.value as object), ...outcome.extra });
    reply.raw.once('finish', () => {
      recordCompletion(deps, dp, {
        status: outcome.status,
        outcome,
        trace,
        usage: mapMessagesUsageToChat(json.member('usage')),
        latencyMs: Date.now() - dp.ctx.startedAt,
      });
    });
    return reply.code(outcome.status).header('content-type', 'application/json').send(json.bytes);
  }
  const stream = outcome.stream!;
  let usage: Record<string, unknown> = {};
  stream.observe({
    usageOnly: true,
    onChunk: (ev) => {
      // message_start carries the input side, message_delta the cumulative output side.
      const u = isObject(ev.message) ? ev.message.usage : ev.usage;
      if (isObject(u)) usage = { ...usage, ...u };
    },
    onEnd: (ok, error) => {
      recordCompletion(deps, dp, {
        status: ok ? outcome.status : (error?.status ?? 500),
        outcome,
        error,
        trace,
        usage: mapMessagesUsageToChat(usage),
        latencyMs: Date.now() - dp.ctx.startedAt,
      });
    },
  });
  return sendEventStream(reply, outcome.status, stream);
}

async function createOverChat(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  p: PreparedRequest,
  body: MessagesRequest,
): Promise<void> {
  const chat = convertMessagesToChat(body);
  const routed = await routeThroughGateway(deps, request, reply, p, 'chat', chat as unknown as Record<string, unknown>);
  const { outcome, trace, dp } = routed;
  if (outcome.json) {
    const value = outcome.json.value as ChatCompletion;
    const message = mapChatToMessage(value, body.model);
    reply.raw.once('finish', () => {
      recordCompletion(deps, dp, { status: outcome.status, outcome, trace, usage: value.usage, latencyMs: Date.now() - dp.ctx.startedAt });
    });
    return reply
      .code(outcome.status)
      .header('content-type', 'application/json')
      .send(JSON.stringify(outcome.extra ? { ...message, ...outcome.extra } : message));
  }
  // Counted while the upstream is already generating: message_start needs input tokens before any usage arrives.
  const events = new ChatStreamToMessageEvents(body.model, estimateMessageTokens(body, await loadTokenCounter()));
  const reader = readChatChunks(deps, routed);
  async function* frames(): AsyncGenerator<Uint8Array> {
    try {
      for await (const batch of reader.batches())
        for (const c of batch) for (const ev of events.push(c as unknown as ChatCompletionChunk)) yield messageEventBytes(ev);
      const failure = reader.failure;
      if (failure) {
        reader.account(failure.status, failure);
        yield messageEventBytes({ type: 'error', error: failure.toBody().error });
        return;
      }
      for (const ev of events.end()) yield messageEventBytes(ev);
      reader.account(outcome.status);
    } finally {
      reader.account(499, new GatewayError('client_closed_request'));
    }
  }
  return sendEventStream(reply, outcome.status, frames());
}
