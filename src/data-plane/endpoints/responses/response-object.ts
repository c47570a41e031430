import type { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { Usage } from '../../../foundation/spec/chat.js';
import type { ResponseItem, ResponseObject, ResponsesRequest, ResponseTool, ResponseUsage } from '../../../foundation/spec/responses.js';

/**
 * The response object for a request before any output: every field of the specification's stored
 * response object, echoing the request's settings with the Responses API defaults. `user` only when
 * the request set it and `usage` only once known, as the published schema has them (optional, not null).
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function baseResponse(req: ResponsesRequest, id: string, createdAt: number): ResponseObject {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    model: req.model ?? '',
    instructions: typeof req.instructions === 'string' ? req.instructions : null,
    metadata: isObject(req.metadata) ? (req.metadata as Record<string, string>) : {},
    temperature: req.temperature ?? 1,
    top_p: req.top_p ?? 1,
    tools: (req.tools ?? []).map(echoTool),
    tool_choice: req.tool_choice ?? 'auto',
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    output: [],
    output_text: '',
    ...(typeof req.user === 'string' ? { user: req.user } : {}),
    previous_response_id: req.previous_response_id ?? null,
    reasoning: {
      effort: req.reasoning?.effort ?? null,
      generate_summary: req.reasoning?.generate_summary ?? req.reasoning?.summary ?? null,
    },
    max_output_tokens: req.max_output_tokens ?? null,
    text: { format: req.text?.format ?? { type: 'text' } },
    truncation: req.truncation ?? 'disabled',
  };
}

/** A tool as a response echoes it: function tools with `description`, `parameters` and `strict` (null when unset), as the published schema requires. */
function echoTool(t: ResponseTool): ResponseTool {
  if (t.type !== 'function') return t;
  return { ...t, description: t.description ?? null, parameters: t.parameters ?? null, strict: t.strict ?? null };
}

/** An assistant message output item with one `output_text` part. */
export function messageItem(id: string, text: string, status: 'in_progress' | 'completed' | 'incomplete'): ResponseItem {
  return { id, type: 'message', status, role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}

/** A function call output item. */
export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  status: 'in_progress' | 'completed' | 'incomplete',
): ResponseItem {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name };
}

/** A reasoning output item carrying the provider's reasoning text as its summary. */
export function reasoningItem(id: string, text: string): ResponseItem {
  return { id, type: 'reasoning', summary: [{ type: 'summary_text', text }] };
}

/** The concatenated text of every `output_text` part of the output messages. */
export function outputTextOf(output: readonly ResponseItem[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/** Chat usage → Responses usage (`input_tokens`, `output_tokens`, cache read, cache write and reasoning details); undefined while unknown. */
export function responseUsage(u: Usage | undefined): ResponseUsage | undefined {
  if (!u) return undefined;
  return {
    input_tokens: u.prompt_tokens ?? 0,
    input_tokens_details: {
      cached_tokens: u.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: u.prompt_tokens_details?.cache_creation_tokens ?? 0,
    },
    output_tokens: u.completion_tokens ?? 0,
    output_tokens_details: { reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0),
  };
}

/** Responses usage → chat usage (request logs and usage accounting speak the chat shape). */
export function chatUsage(u: unknown): Usage | undefined {
  if (!isObject(u) || typeof u.input_tokens !== 'number') return undefined;
  const output = typeof u.output_tokens === 'number' ? u.output_tokens : 0;
  return {
    prompt_tokens: u.input_tokens,
    completion_tokens: output,
    total_tokens: typeof u.total_tokens === 'number' ? u.total_tokens : u.input_tokens + output,
  };
}

/** Status and incomplete details for a chat finish reason: `length` → max_output_tokens, `content_filter` → content_filter. */
export function finishStatus(finish: string | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The `error` of a failed response: the provider's own code when it sent one, `rate_limit_exceeded` for 429, else `server_error`. */
export function responseError(err: GatewayError): { code: string; message: string } {
  const own = err.provider && err.publicCode && err.publicCode !== err.code ? err.publicCode : undefined;
  return { code: own ?? (err.status === 429 ? 'rate_limit_exceeded' : 'server_error'), message: err.message };
}
