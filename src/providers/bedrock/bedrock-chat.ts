import type { ChatCompletion, ChatCompletionMessage, ChatCompletionRequest, ToolCall } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import type { CallContext, UpstreamCall } from '../provider.js';
import type { BedrockConverseRequest, BedrockConverseResponse, BedrockToolChoice } from './bedrock-types.js';
import { convertToBedrockMessages } from './convert-to-bedrock-messages.js';
import { mapBedrockFinishReason } from './map-bedrock-finish-reason.js';
import { mapBedrockUsage } from './map-bedrock-usage.js';
import { bedrockModelUrl, readBedrockAuth, signBedrockRequest } from './bedrock-auth.js';

/** The model id of a request, required by every Bedrock operation (it is part of the path). */
export function requireModel(model: unknown): string {
  if (typeof model !== 'string' || !model) {
    throw new GatewayError('invalid_request', "Provider 'bedrock' needs 'model' (a Bedrock model id, inference profile id or ARN).", {
      param: 'model',
    });
  }
  return model;
}

/** True for Anthropic model ids, inference profiles and ARNs (`anthropic.claude-…`, `us.anthropic.claude-…`, `…/anthropic.claude-…`). */
export function isAnthropic(model: string): boolean {
  return /(^|[.:/])anthropic\./.test(model);
}

function toolChoiceOf(choice: ChatCompletionRequest['tool_choice']): BedrockToolChoice | undefined {
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  if (isObject(choice) && choice.type === 'function') return { tool: { name: choice.function.name } };
  return undefined;
}

/**
 * Maps a common chat request to a Converse body: messages and system prompt, `inferenceConfig`,
 * `toolConfig` (tool_choice `none` drops the tools unless the history holds tool blocks, which
 * Converse only accepts with a toolConfig), and `thinking` as `additionalModelRequestFields` for
 * Anthropic models.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export function buildConverseBody(req: ChatCompletionRequest, model: string): BedrockConverseRequest {
  if (!Array.isArray(req.messages) || req.messages.length === 0) {
    throw new GatewayError('invalid_request', "'messages' must be a non-empty array.", { param: 'messages' });
  }
  const { system, messages } = convertToBedrockMessages(req.messages);
  const body: BedrockConverseRequest = { messages };
  if (system.length) body.system = system;
  const inference: NonNullable<BedrockConverseRequest['inferenceConfig']> = {};
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (typeof maxTokens === 'number') inference.maxTokens = maxTokens;
  if (typeof req.temperature === 'number') inference.temperature = req.temperature;
  if (typeof req.top_p === 'number') inference.topP = req.top_p;
  if (req.stop) inference.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  if (req.tools?.length) {
    const hasToolBlocks = messages.some((m) => m.content.some((b) => b.toolUse || b.toolResult));
    if (req.tool_choice !== 'none' || hasToolBlocks) {
      body.toolConfig = {
        tools: req.tools.map((t) => ({
          toolSpec: {
            name: t.function.name,
            ...(t.function.description ? { description: t.function.description } : {}),
            inputSchema: { json: t.function.parameters ?? { type: 'object', properties: {} } },
          },
        })),
      };
      const choice = toolChoiceOf(req.tool_choice);
      if (choice) body.toolConfig.toolChoice = choice;
    }
  }
  if (req.thinking?.type === 'enabled' && isAnthropic(model)) {
    body.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: req.thinking.budget_tokens ?? 1024 } };
  }
  return body;
}

/** Builds the signed Converse (or ConverseStream, when `ctx.stream`) call. */
export async function buildConverseCall(req: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamCall> {
  const auth = readBedrockAuth(ctx.target);
  const model = requireModel(req.model);
  const body = JSON.stringify(buildConverseBody(req, model));
  const url = bedrockModelUrl(ctx.target, auth.region, model, ctx.stream ? 'converse-stream' : 'converse');
  const accept = ctx.stream ? 'application/vnd.amazon.eventstream' : 'application/json';
  const headers = await signBedrockRequest(auth, url, body, accept, ctx.target.forwardHeaders, new Date(ctx.clock.now()));
  return { url, method: 'POST', headers, body };
}

/** A `toolUse` block as a common tool call (`input` serialised as the JSON arguments). */
export function toToolCall(toolUse: { toolUseId: string; name: string; input: unknown }): ToolCall {
  return { id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: JSON.stringify(toolUse.input ?? {}) } };
}

/**
 * Maps a Converse answer to a chat completion: text blocks joined as `content`, `toolUse` blocks as
 * `tool_calls`, `reasoningContent` as `reasoning_content` (and `content_blocks` keeping signatures
 * for the next turn), usage with cached tokens.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
export function mapConverseResponse(raw: unknown, req: ChatCompletionRequest, ctx: CallContext): ChatCompletion {
  const res = (isObject(raw) ? raw : {}) as BedrockConverseResponse;
  const blocks = res.output?.message?.content ?? [];
  const texts: string[] = [];
  const reasoning: Array<{ type: 'thinking'; thinking: string; signature?: string }> = [];
  const toolCalls: ToolCall[] = [];
  for (const b of blocks) {
    if (typeof b.text === 'string') texts.push(b.text);
    else if (b.toolUse) toolCalls.push(toToolCall(b.toolUse));
    else if (b.reasoningContent?.reasoningText) {
      const r = b.reasoningContent.reasoningText;
      reasoning.push({ type: 'thinking', thinking: r.text, ...(r.signature ? { signature: r.signature } : {}) });
    }
  }
  const text = texts.join('');
  const message: ChatCompletionMessage = { role: 'assistant', content: text || (toolCalls.length ? null : ''), refusal: null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  if (reasoning.length) {
    message.reasoning_content = reasoning.map((r) => r.thinking).join('');
    message.content_blocks = [...reasoning, ...(text ? [{ type: 'text' as const, text }] : [])];
  }
  return {
    id: prefixedId('chatcmpl-'),
    object: 'chat.completion',
    created: unixSeconds(ctx.clock),
    model: req.model ?? '',
    choices: [{ index: 0, message, finish_reason: mapBedrockFinishReason(res.stopReason), logprobs: null }],
    usage: mapBedrockUsage(res.usage),
  };
}
