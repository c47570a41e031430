import type { ChatMessage, ToolCall } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import { convertContent, convertSystemContent } from './convert-to-anthropic-content.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicTextBlock, AnthropicToolResultBlock } from './anthropic-types.js';

/** The `system` and `messages` members of a Messages API body. */
export interface AnthropicPrompt {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage[];
}

/**
 * Converts common-schema messages to Anthropic's `system` + alternating `messages`:
 * - `system` and `developer` messages are lifted into `system` (a string, or text blocks when a part
 *   carries `cache_control`);
 * - assistant `tool_calls` become `tool_use` blocks; `tool` messages become `tool_result` blocks in a
 *   user turn; consecutive turns of the same role are merged into one (so parallel tool results
 *   travel in one user message, as Anthropic requires);
 * - an assistant turn's signed thinking (from `content_blocks` or `thinking_blocks` as returned by
 *   this gateway, or native `thinking` parts) is replayed before its text. A bare `reasoning_content`
 *   cannot be replayed: Anthropic refuses thinking blocks without their signature.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function convertToAnthropicMessages(messages: ChatMessage[]): AnthropicPrompt {
  const system: AnthropicTextBlock[] = [];
  const turns: Array<{ role: 'user' | 'assistant'; blocks: AnthropicContentBlock[] }> = [];
  const append = (role: 'user' | 'assistant', blocks: AnthropicContentBlock[]): void => {
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  };
  messages.forEach((msg, i) => {
    const param = `messages[${i}]`;
    switch (msg.role) {
      case 'system':
      case 'developer':
        system.push(...convertSystemContent(msg.content, `${param}.content`));
        break;
      case 'user':
        append('user', convertContent(msg.content, `${param}.content`));
        break;
      case 'assistant': {
        const blocks = [
          ...signedThinking(msg),
          ...convertContent(msg.content, `${param}.content`),
          ...(msg.tool_calls ?? []).map((c, j) => toolUse(c, `${param}.tool_calls[${j}]`)),
        ];
        if (blocks.length) append('assistant', blocks);
        break;
      }
      case 'tool':
        append('user', [toolResult(msg, param)]);
        break;
      default:
        throw new GatewayError('invalid_request', `${param}.role '${String(msg.role)}' is not supported by this provider.`, {
          param: `${param}.role`,
        });
    }
  });
  const out: AnthropicPrompt = { messages: turns.map((t) => ({ role: t.role, content: collapse(t.blocks) })) };
  if (system.length) out.system = system.some((b) => b.cache_control) ? system : system.map((b) => b.text).join('\n');
  return out;
}

/** A single plain text block travels as a string, the shortest form the API accepts. */
function collapse(blocks: AnthropicContentBlock[]): string | AnthropicContentBlock[] {
  const only = blocks[0];
  return blocks.length === 1 && only?.type === 'text' && !only.cache_control ? only.text : blocks;
}

function signedThinking(msg: ChatMessage): AnthropicContentBlock[] {
  const source = Array.isArray(msg.content_blocks) ? msg.content_blocks : Array.isArray(msg.thinking_blocks) ? msg.thinking_blocks : [];
  const out: AnthropicContentBlock[] = [];
  for (const b of source) {
    if (!isObject(b)) continue;
    if (b.type === 'thinking' && typeof b.thinking === 'string' && typeof b.signature === 'string' && b.signature) {
      out.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
    } else if (b.type === 'redacted_thinking' && typeof b.data === 'string') {
      out.push({ type: 'redacted_thinking', data: b.data });
    }
  }
  return out;
}

function toolUse(call: ToolCall, param: string): AnthropicContentBlock {
  const args = call.function?.arguments ?? '';
  const input = args.trim() === '' ? {} : tryParseJson(args);
  if (!isObject(input)) {
    throw new GatewayError('invalid_request', `${param}.function.arguments must be a JSON object.`, {
      param: `${param}.function.arguments`,
    });
  }
  return { type: 'tool_use', id: call.id, name: call.function.name, input };
}

function toolResult(msg: ChatMessage, param: string): AnthropicToolResultBlock {
  if (typeof msg.tool_call_id !== 'string' || !msg.tool_call_id) {
    throw new GatewayError('invalid_request', `${param}.tool_call_id is required for tool messages.`, { param: `${param}.tool_call_id` });
  }
  if (typeof msg.content === 'string' || msg.content == null)
    return { type: 'tool_result', tool_use_id: msg.tool_call_id, content: msg.content ?? '' };
  const blocks = convertContent(msg.content, `${param}.content`).map((b) => {
    if (b.type !== 'text' && b.type !== 'image')
      throw new GatewayError('invalid_request', `${param}.content: tool results accept text and images only.`, { param });
    return b;
  });
  return { type: 'tool_result', tool_use_id: msg.tool_call_id, content: blocks };
}
