import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { ChatCompletionRequest, ChatMessage, ContentPart, FunctionTool, ToolCall, ToolChoice } from '../../../foundation/spec/chat.js';
import type {
  MessagesContentBlock,
  MessagesRequest,
  MessagesSource,
  MessagesTool,
  MessagesToolChoice,
} from '../../../foundation/spec/messages.js';

/**
 * Converts a Messages API body into a common-schema chat request, for targets that do not speak the
 * Messages API natively:
 * - `system` → a system message (text blocks keep their `cache_control`);
 * - a user turn's `tool_result` blocks → `tool` messages (first, in order), its other blocks → one user
 *   message; `image` → `image_url` (base64 → `data:` URL), `document` with base64 data → a `file` part;
 * - an assistant turn's text → `content`, `tool_use` → `tool_calls`, signed `thinking` and
 *   `redacted_thinking` → `content_blocks` (so Anthropic-backed targets can replay them);
 * - `max_tokens`, `stop_sequences` → `stop`, `temperature`, `top_p`, `metadata.user_id` → `user`,
 *   `thinking`, `tools` (`input_schema` → `parameters`), `tool_choice` (`any` → `required`, `tool` → a
 *   named function, `disable_parallel_tool_use` → `parallel_tool_calls: false`), `stream` (with
 *   `stream_options.include_usage`, so the closing `message_delta` can report usage).
 * - a mid-conversation `system` turn → a system message at that point (text blocks only);
 * - `thinking` `enabled`/`disabled` → `thinking`; `adaptive` (the model chooses) → `reasoning_effort` from
 *   `output_config.effort` (`low`, `medium`, `high`; `max` → `high`), nothing when no effort is given;
 * - `output_config.format` of type `json_schema` → `response_format`.
 * `top_k`, `thinking.display`, `context_management`, `service_tier`, `container`, `mcp_servers` and other
 * members with no common-schema meaning are dropped (docs/messages.md lists them). Server tools (a `type`
 * other than `custom`) can only run on Anthropic itself: refused here with 400 naming the tool.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function convertMessagesToChat(req: MessagesRequest): ChatCompletionRequest {
  const messages: ChatMessage[] = [];
  if (typeof req.system === 'string') {
    if (req.system) messages.push({ role: 'system', content: req.system });
  } else if (Array.isArray(req.system) && req.system.length) {
    messages.push({ role: 'system', content: req.system.map((b) => textPart(b.text, b.cache_control)) });
  }
  req.messages.forEach((turn, i) => {
    const param = `messages[${i}]`;
    if (turn.role === 'assistant') messages.push(assistantMessage(turn.content, param));
    else if (turn.role === 'user') messages.push(...userMessages(turn.content, param));
    else if (turn.role === 'system') messages.push(systemMessage(turn.content, param));
    else
      throw new GatewayError(
        'invalid_request',
        `${param}.role '${String(turn.role)}' has no chat equivalent; this target is reached by translation.`,
        { param: `${param}.role` },
      );
  });
  const chat: ChatCompletionRequest = { model: req.model, messages, max_tokens: req.max_tokens };
  if (req.stop_sequences?.length) chat.stop = req.stop_sequences;
  if (typeof req.temperature === 'number') chat.temperature = req.temperature;
  if (typeof req.top_p === 'number') chat.top_p = req.top_p;
  if (typeof req.metadata?.user_id === 'string' && req.metadata.user_id) chat.user = req.metadata.user_id;
  if (isObject(req.thinking)) mapThinking(req, chat);
  const format = req.output_config?.format;
  if (format?.type === 'json_schema' && isObject(format.schema))
    chat.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
  if (req.tools?.length) chat.tools = req.tools.map((t, i) => toFunctionTool(t, `tools[${i}]`));
  if (req.tool_choice) Object.assign(chat, toToolChoice(req.tool_choice));
  if (req.stream === true) {
    chat.stream = true;
    // The usage of a streamed answer arrives in a last chunk only when asked for (message_delta needs it).
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

const EFFORTS: Record<string, ChatCompletionRequest['reasoning_effort']> = { low: 'low', medium: 'medium', high: 'high', max: 'high' };

/** `thinking`: the common schema's `enabled`/`disabled` as is; `adaptive` → `reasoning_effort` from `output_config.effort`. */
function mapThinking(req: MessagesRequest, chat: ChatCompletionRequest): void {
  const thinking = req.thinking!;
  if (thinking.type === 'enabled' || thinking.type === 'disabled') {
    chat.thinking = thinking;
    return;
  }
  const effort = typeof req.output_config?.effort === 'string' ? EFFORTS[req.output_config.effort] : undefined;
  if (thinking.type === 'adaptive' && effort) chat.reasoning_effort = effort;
}

/** A mid-conversation `system` turn as a system message at that point. */
function systemMessage(content: MessagesRequest['messages'][number]['content'], param: string): ChatMessage {
  if (typeof content === 'string') return { role: 'system', content };
  return {
    role: 'system',
    content: content.map((block, j) => {
      if (block.type !== 'text')
        throw new GatewayError('invalid_request', `${param}.content[${j}]: a system turn holds text blocks only.`, {
          param: `${param}.content[${j}].type`,
        });
      return textPart(block.text, block.cache_control);
    }),
  };
}

function textPart(text: string, cacheControl: unknown): ContentPart {
  return isObject(cacheControl) ? { type: 'text', text, cache_control: cacheControl } : { type: 'text', text };
}

function sourceUrl(source: MessagesSource): string {
  return source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
}

/** A user-side block (text, image, document) as a common content part. */
function toPart(block: MessagesContentBlock, param: string): ContentPart {
  switch (block.type) {
    case 'text':
      return textPart(block.text, block.cache_control);
    case 'image':
      return { type: 'image_url', image_url: { url: sourceUrl(block.source) } };
    case 'document':
      if (block.source.type === 'base64')
        return { type: 'file', file: { filename: block.title ?? 'document', file_data: sourceUrl(block.source) } };
      if (block.source.type === 'text') return { type: 'text', text: block.source.data };
      throw new GatewayError('invalid_request', `${param}: a document given by URL can only be sent to an Anthropic target.`, { param });
    default:
      throw new GatewayError('invalid_request', `${param}: a block of type '${block.type}' is not allowed here.`, {
        param: `${param}.type`,
      });
  }
}

function userMessages(content: MessagesRequest['messages'][number]['content'], param: string): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const tools: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  content.forEach((block, j) => {
    const p = `${param}.content[${j}]`;
    if (block.type === 'tool_result') {
      const result = block.content;
      const text =
        typeof result === 'string' || result === undefined ? (result ?? '') : result.map((b, k) => toPart(b, `${p}.content[${k}]`));
      tools.push({
        role: 'tool',
        tool_call_id: block.tool_use_id,
        content: block.is_error && typeof text === 'string' ? `Error: ${text}` : text,
      });
    } else {
      parts.push(toPart(block, p));
    }
  });
  if (parts.length)
    tools.push({
      role: 'user',
      content:
        parts.length === 1 && parts[0]!.type === 'text' && !('cache_control' in parts[0]!) ? (parts[0] as { text: string }).text : parts,
    });
  return tools;
}

function assistantMessage(content: MessagesRequest['messages'][number]['content'], param: string): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  const toolCalls: ToolCall[] = [];
  const blocks: Array<Record<string, unknown>> = [];
  content.forEach((block, j) => {
    const p = `${param}.content[${j}]`;
    if (block.type === 'text') {
      text += block.text;
      blocks.push({ type: 'text', text: block.text });
    } else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === 'thinking') {
      blocks.push({ type: 'thinking', thinking: block.thinking, ...(block.signature ? { signature: block.signature } : {}) });
    } else if (block.type === 'redacted_thinking') {
      blocks.push({ type: 'redacted_thinking', data: block.data });
    } else {
      throw new GatewayError('invalid_request', `${p}: an assistant turn cannot hold a '${block.type}' block.`, { param: `${p}.type` });
    }
  });
  const msg: ChatMessage = { role: 'assistant', content: text || (toolCalls.length ? null : '') };
  if (toolCalls.length) msg.tool_calls = toolCalls;
  if (blocks.some((b) => b.type !== 'text')) msg.content_blocks = blocks;
  return msg;
}

function toFunctionTool(tool: MessagesTool, param: string): FunctionTool {
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw new GatewayError('invalid_request', `${param}: the server tool '${tool.type}' runs only on Anthropic targets.`, {
      param: `${param}.type`,
    });
  }
  const fn: FunctionTool['function'] = { name: tool.name };
  if (tool.description) fn.description = tool.description;
  fn.parameters = tool.input_schema ?? { type: 'object', properties: {} };
  return { type: 'function', function: fn };
}

function toToolChoice(choice: MessagesToolChoice): { tool_choice: ToolChoice; parallel_tool_calls?: boolean } {
  const parallel = 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'tool':
      return { tool_choice: { type: 'function', function: { name: choice.name } }, ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    default:
      return { tool_choice: 'auto', ...parallel };
  }
}
