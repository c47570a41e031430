import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadTokenCounter, type TokenCounter } from '../../../foundation/lib/token-counter.js';
import { prepareRequest, routeThroughGateway, servesNatively } from '../../pipeline/route-through-gateway.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import type { MessagesCountTokensResponse, MessagesRequest } from '../../../foundation/spec/messages.js';

/** Tokens every message adds besides its text (role and separators), as in OpenAI's counting recipe. */
const PER_MESSAGE = 3;

/**
 * `POST /v1/messages/count_tokens`: forwarded to the target when every target the config can reach
 * counts natively (exact); otherwise estimated by the gateway with the o200k tokenizer over the system
 * prompt, every text block, tool inputs and results, and the tool definitions (an estimate: other
 * model families tokenize differently).
 * @see https://docs.anthropic.com/en/api/messages-count-tokens
 */
export async function countMessageTokens(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  body: MessagesRequest,
): Promise<unknown> {
  const p = prepareRequest(deps, request, reply);
  if (servesNatively(request, p, deps.targets, 'messages_count_tokens', body.model)) {
    p.gh.forwardHeaderNames = [...(p.gh.forwardHeaderNames ?? []), 'anthropic-version', 'anthropic-beta'];
    const { outcome } = await routeThroughGateway(deps, request, reply, p, 'messages_count_tokens', body);
    return reply.code(outcome.status).header('content-type', 'application/json').send(outcome.json!.bytes);
  }
  const answer: MessagesCountTokensResponse = { input_tokens: estimateMessageTokens(body, await loadTokenCounter()) };
  return answer;
}

/**
 * The gateway's estimate of a Messages request's input tokens: the system prompt, every text block,
 * tool inputs and results, the tool definitions, and a few tokens per message.
 */
export function estimateMessageTokens(body: Pick<MessagesRequest, 'system' | 'messages' | 'tools'>, count: TokenCounter): number {
  const texts: string[] = [];
  if (typeof body.system === 'string') texts.push(body.system);
  else for (const b of body.system ?? []) texts.push(b.text);
  let tokens = 0;
  for (const turn of body.messages) {
    tokens += PER_MESSAGE;
    if (typeof turn.content === 'string') texts.push(turn.content);
    else for (const block of turn.content) texts.push(blockText(block));
  }
  if (body.tools?.length) texts.push(JSON.stringify(body.tools));
  for (const t of texts) tokens += count(t);
  return tokens;
}

function blockText(block: Record<string, unknown> | { type: string }): string {
  const b = block as Record<string, unknown>;
  if (typeof b.text === 'string') return b.text;
  if (typeof b.thinking === 'string') return b.thinking;
  if (b.type === 'tool_use') return `${String(b.name)} ${JSON.stringify(b.input ?? {})}`;
  if (b.type === 'tool_result')
    return typeof b.content === 'string'
      ? b.content
      : Array.isArray(b.content)
        ? b.content.map((c) => blockText(c as Record<string, unknown>)).join('\n')
        : '';
  return '';
}
