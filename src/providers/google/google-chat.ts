import type { ChatCompletion, ChatCompletionRequest, ToolCall, Usage } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { prefixedId } from '../../foundation/lib/ids.js';
import { convertToGoogleMessages, type GoogleToolCall } from './convert-to-google-messages.js';
import { convertToGoogleSchema } from './convert-to-google-schema.js';
import { convertToGoogleTools, convertToGoogleToolConfig } from './convert-to-google-tools.js';
import { mapGoogleFinishReason } from './map-google-finish-reason.js';

/** Thinking budgets for `reasoning_effort`, as Google's OpenAI compatibility layer documents them. */
const EFFORT_BUDGET: Record<string, number> = { minimal: 0, low: 1024, medium: 8192, high: 24576 };

/** The model of a request without a `models/` prefix; a missing model is a client error. */
export function googleModelOf(model: string | undefined): string {
  if (!model) throw new GatewayError('invalid_request', "The request needs a 'model'.", { param: 'model' });
  return model.replace(/^models\//, '');
}

function generationConfig(req: ChatCompletionRequest): Record<string, unknown> {
  const cfg: Record<string, unknown> = {};
  if (req.temperature !== undefined) cfg.temperature = req.temperature;
  if (req.top_p !== undefined) cfg.topP = req.top_p;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (maxTokens !== undefined) cfg.maxOutputTokens = maxTokens;
  if (req.stop !== undefined && req.stop !== null) cfg.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (req.n !== undefined) cfg.candidateCount = req.n;
  if (req.seed !== undefined) cfg.seed = req.seed;
  if (req.presence_penalty !== undefined) cfg.presencePenalty = req.presence_penalty;
  if (req.frequency_penalty !== undefined) cfg.frequencyPenalty = req.frequency_penalty;
  const format = req.response_format;
  if (format?.type === 'json_object' || format?.type === 'json_schema') {
    cfg.responseMimeType = 'application/json';
    const schema = format.json_schema?.schema;
    if (format.type === 'json_schema' && isObject(schema)) cfg.responseSchema = convertToGoogleSchema(schema);
  }
  if (req.thinking?.type === 'enabled') {
    cfg.thinkingConfig = {
      includeThoughts: true,
      ...(req.thinking.budget_tokens !== undefined ? { thinkingBudget: req.thinking.budget_tokens } : {}),
    };
  } else if (req.thinking?.type === 'disabled') {
    cfg.thinkingConfig = { thinkingBudget: 0 };
  } else if (req.reasoning_effort !== undefined && req.reasoning_effort in EFFORT_BUDGET) {
    const budget = EFFORT_BUDGET[req.reasoning_effort]!;
    cfg.thinkingConfig = budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
  }
  return cfg;
}

/**
 * Builds a Gemini `GenerateContentRequest` from a common chat request: contents and systemInstruction,
 * tools and toolConfig, and a generationConfig (sampling, limits, stop, candidateCount, seed, JSON
 * output, thinkingConfig). Shared with vertex-ai, whose Gemini models take the same body.
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export function buildGoogleChatBody(req: ChatCompletionRequest): Record<string, unknown> {
  const model = req.model ?? '';
  const { contents, systemInstruction } = convertToGoogleMessages(req.messages, { requireThoughtSignatures: /gemini-3/.test(model) });
  const body: Record<string, unknown> = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  const tools = convertToGoogleTools(req.tools);
  if (tools) body.tools = tools;
  const toolConfig = tools ? convertToGoogleToolConfig(req.tool_choice) : undefined;
  if (toolConfig) body.toolConfig = toolConfig;
  const cfg = generationConfig(req);
  if (Object.keys(cfg).length) body.generationConfig = cfg;
  if (Array.isArray(req.safety_settings)) body.safetySettings = req.safety_settings;
  if (typeof req.cached_content === 'string') body.cachedContent = req.cached_content;
  return body;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/**
 * Maps Gemini `usageMetadata` to common usage: thoughts count as completion tokens and are reported as
 * reasoning tokens; `cachedContentTokenCount` becomes `cached_tokens`.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function mapGoogleUsage(meta: unknown): Usage | undefined {
  if (!isObject(meta)) return undefined;
  const prompt = num(meta.promptTokenCount) + num(meta.toolUsePromptTokenCount);
  const thoughts = num(meta.thoughtsTokenCount);
  const completion = num(meta.candidatesTokenCount) + thoughts;
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(meta.totalTokenCount) || prompt + completion,
  };
  usage.prompt_tokens_details = { cached_tokens: num(meta.cachedContentTokenCount) };
  usage.completion_tokens_details = { reasoning_tokens: thoughts };
  return usage;
}

/** A common tool call for a Gemini `functionCall` part, keeping its thought signature. */
export function toolCallOf(part: Record<string, unknown>): GoogleToolCall | undefined {
  const call = part.functionCall;
  if (!isObject(call) || typeof call.name !== 'string') return undefined;
  const tc: GoogleToolCall = {
    id: typeof call.id === 'string' && call.id ? call.id : prefixedId('call_'),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
  };
  if (typeof part.thoughtSignature === 'string') tc.extra_content = { google: { thought_signature: part.thoughtSignature } };
  return tc;
}

/**
 * Maps a Gemini `GenerateContentResponse` to a chat completion: text parts → content, thought parts →
 * reasoning_content, functionCall parts → tool_calls; a prompt blocked by `promptFeedback` gives one
 * empty choice finished by `content_filter`.
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export function mapGoogleResponse(body: unknown, model: string, created: number): ChatCompletion {
  const res = isObject(body) ? body : {};
  const candidates = Array.isArray(res.candidates) ? res.candidates.filter(isObject) : [];
  const choices: ChatCompletion['choices'] = candidates.map((cand, i) => {
    const parts = isObject(cand.content) && Array.isArray(cand.content.parts) ? cand.content.parts.filter(isObject) : [];
    let text = '';
    let reasoning = '';
    const toolCalls: ToolCall[] = [];
    for (const part of parts) {
      const call = toolCallOf(part);
      if (call) toolCalls.push(call);
      else if (typeof part.text === 'string') {
        if (part.thought === true) reasoning += part.text;
        else text += part.text;
      }
    }
    const message: ChatCompletion['choices'][number]['message'] = {
      role: 'assistant',
      content: text.length || !toolCalls.length ? text : null,
      refusal: null,
    };
    if (toolCalls.length) message.tool_calls = toolCalls;
    if (reasoning) message.reasoning_content = reasoning;
    return {
      index: typeof cand.index === 'number' ? cand.index : i,
      message,
      finish_reason: mapGoogleFinishReason(cand.finishReason, toolCalls.length > 0),
      logprobs: null,
    };
  });
  if (choices.length === 0) {
    const blocked = isObject(res.promptFeedback) && res.promptFeedback.blockReason !== undefined;
    choices.push({
      index: 0,
      message: { role: 'assistant', content: blocked ? null : '', refusal: null },
      finish_reason: blocked ? 'content_filter' : 'stop',
      logprobs: null,
    });
  }
  const completion: ChatCompletion = {
    id: typeof res.responseId === 'string' ? `chatcmpl-${res.responseId}` : prefixedId('chatcmpl-'),
    object: 'chat.completion',
    created,
    model: typeof res.modelVersion === 'string' ? res.modelVersion : model,
    choices,
  };
  const usage = mapGoogleUsage(res.usageMetadata);
  if (usage) completion.usage = usage;
  return completion;
}
