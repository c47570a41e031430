import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart, FunctionTool, ToolChoice } from '../../../foundation/spec/chat.js';
import type { ResponseContentPart, ResponseItem, ResponseTool, ResponsesRequest } from '../../../foundation/spec/responses.js';

/**
 * Maps a Responses request onto a chat completion request for a provider without a native Responses
 * API: `instructions` become the system message, the conversation items (earlier turns loaded by
 * `previous_response_id`, then this request's input) become chat messages, function tools become chat
 * tools, `max_output_tokens` becomes `max_tokens`, `text.format` becomes `response_format`,
 * `reasoning.effort` becomes `reasoning_effort`, `text.verbosity` becomes `verbosity`, `prompt_cache_key` is
 * kept. Function tools come from `tools` and from `additional_tools` input items; other tool kinds
 * (hosted `web_search`, `namespace`, `custom`, ...) cannot run over chat: they are dropped, unless
 * `tool_choice` forces one (400 naming it). `include`, `reasoning.context`, `reasoning.summary`,
 * `client_metadata` and other members with no chat meaning are dropped (docs/responses.md lists them).
 * A stream asks for the usage chunk.
 * @see https://platform.openai.com/docs/guides/migrate-to-responses
 */
export function convertToChatRequest(req: ResponsesRequest, items: readonly ResponseItem[]): ChatCompletionRequest {
  checkRunnableOverChat(req);
  const messages: ChatMessage[] = [];
  if (typeof req.instructions === 'string' && req.instructions.length > 0) messages.push({ role: 'system', content: req.instructions });
  messages.push(...convertItemsToMessages(items));
  const chat: ChatCompletionRequest = { messages };
  if (req.model !== undefined) chat.model = req.model;
  if (req.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (typeof req.max_output_tokens === 'number') chat.max_tokens = req.max_output_tokens;
  if (typeof req.temperature === 'number') chat.temperature = req.temperature;
  if (typeof req.top_p === 'number') chat.top_p = req.top_p;
  if (typeof req.user === 'string') chat.user = req.user;
  const tools = functionTools(req.tools, items);
  if (typeof req.parallel_tool_calls === 'boolean' && tools.length) chat.parallel_tool_calls = req.parallel_tool_calls;
  if (tools.length) chat.tools = tools;
  if (req.tool_choice !== undefined && tools.length) chat.tool_choice = convertToolChoice(req.tool_choice);
  else if (isObject(req.tool_choice))
    throw new GatewayError(
      'invalid_request',
      `tool_choice forces a tool that cannot run over chat completions: only function tools run there.`,
      { param: 'tool_choice' },
    );
  if (typeof req.text?.verbosity === 'string') chat.verbosity = req.text.verbosity;
  if (typeof req.prompt_cache_key === 'string') chat.prompt_cache_key = req.prompt_cache_key;
  const format = req.text?.format;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema')
    chat.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}) },
    };
  const effort = req.reasoning?.effort;
  if (typeof effort === 'string') chat.reasoning_effort = effort as ChatCompletionRequest['reasoning_effort'];
  return chat;
}

const TRUNCATIONS = new Set(['auto', 'disabled']);
const CHOICES = new Set(['none', 'auto', 'required']);
const FORMATS = new Set(['text', 'json_object', 'json_schema']);

/** 400 for a value of a member the gateway itself runs over chat (truncation, tool_choice, text.format) that it does not know. */
function checkRunnableOverChat(req: ResponsesRequest): void {
  const refuse = (param: string, value: unknown, known: Set<string>) => {
    throw new GatewayError(
      'invalid_request',
      `${param} '${String(value)}' cannot run over chat completions (this target does not serve the Responses API natively); known values: ${[...known].join(', ')}.`,
      { param },
    );
  };
  if (typeof req.truncation === 'string' && !TRUNCATIONS.has(req.truncation)) refuse('truncation', req.truncation, TRUNCATIONS);
  if (typeof req.tool_choice === 'string' && !CHOICES.has(req.tool_choice)) refuse('tool_choice', req.tool_choice, CHOICES);
  const format = req.text?.format;
  if (format && !FORMATS.has(format.type)) refuse('text.format.type', format.type, FORMATS);
}

/** Conversation items → chat messages. Consecutive function calls join the assistant turn before them. */
export function convertItemsToMessages(items: readonly ResponseItem[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  items.forEach((item, i) => {
    switch (item.type) {
      case 'message': {
        const role = item.role === 'developer' ? 'system' : item.role;
        if (role === 'assistant') out.push({ role: 'assistant', content: assistantText(item.content) });
        else if (role === 'user' || role === 'system') out.push({ role, content: inputContent(item.content, role, i) });
        else
          throw new GatewayError('invalid_request', `input[${i}].role must be user, assistant, system or developer.`, {
            param: `input[${i}].role`,
          });
        return;
      }
      case 'function_call': {
        const call = {
          id: String(item.call_id ?? item.id),
          type: 'function' as const,
          function: { name: String(item.name ?? ''), arguments: String(item.arguments ?? '') },
        };
        const last = out[out.length - 1];
        if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
        else out.push({ role: 'assistant', content: null, tool_calls: [call] });
        return;
      }
      case 'function_call_output':
        out.push({
          role: 'tool',
          tool_call_id: String(item.call_id ?? ''),
          content: typeof item.output === 'string' ? item.output : textOf(item.output),
        });
        return;
      case 'reasoning':
      case 'additional_tools':
        return;
      default:
        throw new GatewayError(
          'invalid_request',
          `input[${i}]: items of type '${item.type}' need a provider that serves the Responses API natively.`,
          { param: `input[${i}].type` },
        );
    }
  });
  return out;
}

function assistantText(content: ResponseItem['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((p) => (p.type === 'refusal' ? String(p.refusal ?? '') : typeof p.text === 'string' ? p.text : '')).join('');
}

function textOf(parts: unknown): string {
  return Array.isArray(parts)
    ? parts
        .filter(isObject)
        .map((p) => (typeof p.text === 'string' ? p.text : ''))
        .join('')
    : '';
}

function inputContent(content: ResponseItem['content'], role: 'user' | 'system', index: number): string | ContentPart[] {
  if (typeof content === 'string') return content;
  const parts = (content ?? []).map((p, j) => convertPart(p, `input[${index}].content[${j}]`));
  if (role === 'system' || parts.every((p) => p.type === 'text'))
    return parts.map((p) => (p.type === 'text' ? String(p.text) : '')).join(role === 'system' ? '\n' : '');
  return parts;
}

function convertPart(p: ResponseContentPart, param: string): ContentPart {
  if (p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') return { type: 'text', text: String(p.text ?? '') };
  if (p.type === 'input_image') {
    if (typeof p.image_url !== 'string')
      throw new GatewayError(
        'invalid_request',
        `${param}: images by file_id need a provider that serves the Responses API natively; send image_url.`,
        { param },
      );
    const detail = p.detail === 'low' || p.detail === 'high' || p.detail === 'auto' ? p.detail : undefined;
    return { type: 'image_url', image_url: { url: p.image_url, ...(detail ? { detail } : {}) } };
  }
  if (p.type === 'input_file' && typeof p.file_data === 'string') {
    return { type: 'file', file: { file_data: p.file_data, ...(typeof p.filename === 'string' ? { filename: p.filename } : {}) } };
  }
  throw new GatewayError(
    'invalid_request',
    `${param}: content of type '${p.type}' needs a provider that serves the Responses API natively.`,
    { param },
  );
}

/** The function tools of `tools` and of `additional_tools` items, as chat tools; other tool kinds are dropped. */
function functionTools(tools: ResponsesRequest['tools'], items: readonly ResponseItem[]): FunctionTool[] {
  const out: FunctionTool[] = [];
  for (const t of tools ?? []) if (t.type === 'function') out.push(convertTool(t));
  for (const item of items) {
    if (item.type !== 'additional_tools' || !Array.isArray(item.tools)) continue;
    for (const t of item.tools)
      if (isObject(t) && t.type === 'function' && typeof t.name === 'string') out.push(convertTool(t as ResponseTool));
  }
  return out;
}

function convertTool(t: ResponseTool): FunctionTool {
  const fn: FunctionTool['function'] = { name: String(t.name) };
  if (typeof t.description === 'string') fn.description = t.description;
  if (isObject(t.parameters)) fn.parameters = t.parameters;
  if (typeof t.strict === 'boolean') fn.strict = t.strict;
  return { type: 'function', function: fn };
}

function convertToolChoice(choice: NonNullable<ResponsesRequest['tool_choice']>): ToolChoice {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice.name === 'string') return { type: 'function', function: { name: choice.name } };
  throw new GatewayError(
    'invalid_request',
    `tool_choice of type '${choice.type}' forces a tool that runs only on a provider serving the Responses API natively; over chat completions only function tools run.`,
    { param: 'tool_choice' },
  );
}
