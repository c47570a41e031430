import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, ToolCall } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import type { CallContext, EndpointAdapter } from '../provider.js';
import { COHERE_DEFAULT_CHAT_MODEL, type CohereChatRequest, type CohereChatResponse, type CohereTool } from './cohere-api-types.js';
import { cohereBaseUrl, cohereHeaders } from './cohere-auth.js';
import { convertToCohereMessages } from './convert-to-cohere-messages.js';
import { cohereFailureStatus, mapCohereFinishReason } from './map-cohere-finish-reason.js';
import { mapCohereUsage } from './map-cohere-usage.js';
import { createCohereStreamMapper } from './cohere-stream.js';

function toolsOf(req: ChatCompletionRequest): { tools?: CohereTool[]; tool_choice?: 'REQUIRED' | 'NONE'; strict_tools?: boolean } {
  if (!req.tools?.length) return {};
  const choice = req.tool_choice;
  const only = typeof choice === 'object' && choice !== null ? choice.function.name : undefined;
  const tools = req.tools
    .filter((t) => only === undefined || t.function.name === only)
    .map((t): CohereTool => ({
      type: 'function',
      function: {
        name: t.function.name,
        ...(t.function.description ? { description: t.function.description } : {}),
        parameters: t.function.parameters ?? { type: 'object', properties: {} },
      },
    }));
  const toolChoice = choice === 'required' || only !== undefined ? 'REQUIRED' : choice === 'none' ? 'NONE' : undefined;
  const strict = req.tools.some((t) => t.function.strict === true);
  return { tools, ...(toolChoice ? { tool_choice: toolChoice } : {}), ...(strict ? { strict_tools: true } : {}) };
}

/**
 * Builds the body of `POST /v2/chat` from a common-schema request: messages, tools and tool choice,
 * sampling (`top_p` → `p`), `stop` → `stop_sequences`, `max_completion_tokens`/`max_tokens` → `max_tokens`,
 * JSON response formats, and `thinking` (`budget_tokens` → `token_budget`).
 * @see https://docs.cohere.com/reference/chat
 */
export function toCohereChatRequest(req: ChatCompletionRequest, stream: boolean): CohereChatRequest {
  const body: CohereChatRequest = {
    model: req.model ?? COHERE_DEFAULT_CHAT_MODEL,
    messages: convertToCohereMessages(req.messages),
    ...toolsOf(req),
  };
  if (stream) body.stream = true;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  if (req.stop) body.stop_sequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.top_p !== undefined) body.p = req.top_p;
  if (typeof req.top_k === 'number') body.k = req.top_k;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.frequency_penalty !== undefined) body.frequency_penalty = req.frequency_penalty;
  if (req.presence_penalty !== undefined) body.presence_penalty = req.presence_penalty;
  if (req.logprobs) body.logprobs = true;
  const format = req.response_format;
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema')
    body.response_format = { type: 'json_object', ...(format.json_schema?.schema ? { json_schema: format.json_schema.schema } : {}) };
  if (req.thinking) {
    body.thinking =
      req.thinking.type === 'enabled'
        ? { type: 'enabled', ...(req.thinking.budget_tokens ? { token_budget: req.thinking.budget_tokens } : {}) }
        : { type: 'disabled' };
  }
  return body;
}

/**
 * Maps a Cohere v2 chat answer to a chat completion: text blocks → `content`, thinking blocks →
 * `reasoning_content`, `tool_plan` → `content` when the turn calls tools, `tool_calls` as is (`null`
 * arguments → `{}`), usage from `tokens`. A generation that ended with `ERROR`/`TIMEOUT` is a provider error.
 * @see https://docs.cohere.com/reference/chat#response
 */
export function mapCohereChatResponse(body: unknown, req: ChatCompletionRequest, ctx: CallContext): ChatCompletion {
  if (!isObject(body) || !isObject(body.message)) {
    throw new GatewayError('provider_error', 'Cohere answered with an unexpected body.', { provider: 'cohere', status: 502 });
  }
  const res = body as unknown as CohereChatResponse;
  const failed = cohereFailureStatus(res.finish_reason);
  if (failed)
    throw new GatewayError('provider_error', `Cohere stopped the generation (${res.finish_reason}).`, {
      provider: 'cohere',
      status: failed,
    });
  const blocks = res.message.content ?? [];
  const text = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const thinking = blocks.map((b) => (b.type === 'thinking' ? b.thinking : '')).join('');
  const toolCalls: ToolCall[] = (res.message.tool_calls ?? []).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.function.name, arguments: c.function.arguments ?? '{}' },
  }));
  const content = text || (toolCalls.length && res.message.tool_plan ? res.message.tool_plan : null);
  return {
    id: `chatcmpl-${res.id}`,
    object: 'chat.completion',
    created: unixSeconds(ctx.clock),
    model: req.model ?? COHERE_DEFAULT_CHAT_MODEL,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          ...(thinking ? { reasoning_content: thinking } : {}),
        },
        finish_reason: mapCohereFinishReason(res.finish_reason),
        logprobs: null,
      },
    ],
    usage: mapCohereUsage(res.usage),
  };
}

/**
 * The chat endpoint of Cohere: `POST /v2/chat`, JSON or SSE.
 * @see https://docs.cohere.com/reference/chat
 */
export const cohereChat: EndpointAdapter<ChatCompletionRequest, ChatCompletion, ChatCompletionChunk> = {
  buildRequest: (req, ctx) => ({
    url: `${cohereBaseUrl(ctx.target)}/v2/chat`,
    method: 'POST',
    headers: cohereHeaders(ctx.target, ctx.stream),
    body: JSON.stringify(toCohereChatRequest(req, ctx.stream)),
  }),
  mapResponse: mapCohereChatResponse,
  createStreamMapper: createCohereStreamMapper,
};
