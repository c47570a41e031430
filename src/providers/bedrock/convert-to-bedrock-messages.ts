import type { ChatMessage, ContentPart } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';
import type { BedrockContentBlock, BedrockMessage, BedrockSystemBlock } from './bedrock-types.js';

const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

function invalid(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', message, { param });
}

/**
 * An `image_url` part as a Converse image block. Only `data:` URLs (base64) are accepted: Bedrock
 * takes image bytes, not links, and the gateway does not fetch client-supplied URLs on its behalf
 * (that would let a request make the gateway call any address). An http(s) URL is a 400.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html
 */
export function convertImagePart(url: string, param: string): BedrockContentBlock {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!m) {
    throw invalid(
      /^https?:/i.test(url)
        ? "Provider 'bedrock' accepts images only as base64 data: URLs (data:image/png;base64,...); http(s) image URLs are not fetched."
        : 'An image URL must be a base64 data: URL (data:image/png;base64,...).',
      param,
    );
  }
  const format = IMAGE_FORMATS[m[1]!.toLowerCase()];
  if (!format) throw invalid(`Image type '${m[1]}' is not supported by Bedrock; use png, jpeg, gif or webp.`, param);
  return { image: { format, source: { bytes: m[2]!.replace(/\s+/g, '') } } };
}

function textOfParts(content: ChatMessage['content'], param: string): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((p, j) => {
      if (p.type !== 'text') throw invalid(`Only text parts are allowed here, got '${p.type}'.`, `${param}[${j}]`);
      return String((p as { text?: unknown }).text ?? '');
    })
    .join('\n');
}

function userBlocks(content: ChatMessage['content'], param: string): BedrockContentBlock[] {
  if (content == null) return [];
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  return content.flatMap((part: ContentPart, j): BedrockContentBlock[] => {
    const p = `${param}[${j}]`;
    if (part.type === 'text') {
      const text = String((part as { text?: unknown }).text ?? '');
      return text ? [{ text }] : [];
    }
    if (part.type === 'image_url') {
      const image = (part as { image_url?: { url?: unknown } }).image_url;
      return [convertImagePart(typeof image?.url === 'string' ? image.url : '', `${p}.image_url.url`)];
    }
    throw invalid(`Content part type '${part.type}' is not supported by provider 'bedrock'.`, `${p}.type`);
  });
}

function reasoningBlocks(m: ChatMessage): BedrockContentBlock[] {
  const blocks = Array.isArray(m.content_blocks) ? m.content_blocks : [];
  const out: BedrockContentBlock[] = [];
  for (const b of blocks) {
    if (isObject(b) && b.type === 'thinking' && typeof b.thinking === 'string') {
      out.push({
        reasoningContent: { reasoningText: { text: b.thinking, ...(typeof b.signature === 'string' ? { signature: b.signature } : {}) } },
      });
    }
  }
  return out;
}

function assistantBlocks(m: ChatMessage, param: string): BedrockContentBlock[] {
  const out = reasoningBlocks(m);
  const text = textOfParts(m.content, `${param}.content`);
  if (text.trim()) out.push({ text });
  (m.tool_calls ?? []).forEach((call, k) => {
    const parsed = tryParseJson(call.function?.arguments ?? '');
    if (call.function?.arguments && !isObject(parsed)) {
      throw invalid('Tool call arguments must be a JSON object.', `${param}.tool_calls[${k}].function.arguments`);
    }
    out.push({ toolUse: { toolUseId: call.id, name: call.function.name, input: isObject(parsed) ? parsed : {} } });
  });
  return out;
}

/**
 * Converts common-schema messages to Converse `system` and `messages`: system/developer turns become
 * system blocks, tool turns become `toolResult` blocks of a user turn, assistant tool calls become
 * `toolUse` blocks, and consecutive turns of one role are merged (Converse wants alternating roles).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
 */
export function convertToBedrockMessages(messages: ChatMessage[]): { system: BedrockSystemBlock[]; messages: BedrockMessage[] } {
  const system: BedrockSystemBlock[] = [];
  const out: BedrockMessage[] = [];
  const push = (role: BedrockMessage['role'], content: BedrockContentBlock[]): void => {
    if (!content.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  messages.forEach((m, i) => {
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer': {
        const text = textOfParts(m.content, `${param}.content`);
        if (text) system.push({ text });
        return;
      }
      case 'user':
        return push('user', userBlocks(m.content, `${param}.content`));
      case 'assistant':
        return push('assistant', assistantBlocks(m, param));
      case 'tool': {
        if (!m.tool_call_id) throw invalid('A tool message needs tool_call_id.', `${param}.tool_call_id`);
        const text = textOfParts(m.content, `${param}.content`);
        return push('user', [{ toolResult: { toolUseId: m.tool_call_id, content: [{ text }] } }]);
      }
      default:
        throw invalid(`Message role '${m.role}' is not supported by provider 'bedrock'.`, `${param}.role`);
    }
  });
  return { system, messages: out };
}
