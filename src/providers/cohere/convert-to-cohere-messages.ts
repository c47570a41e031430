import type { ChatMessage, ContentPart } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { CohereContentPart, CohereMessage } from './cohere-api-types.js';

function textOf(content: ChatMessage['content'], param: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      throw new GatewayError('invalid_request', `Cohere accepts only text parts here, not '${part.type}'.`, { param: `${param}[${i}]` });
    })
    .join('');
}

function userContent(content: ChatMessage['content'], param: string): string | CohereContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: ContentPart, i): CohereContentPart => {
    if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    if (part.type === 'image_url' && typeof part.image_url === 'object' && part.image_url !== null) {
      const image = part.image_url as { url: string; detail?: 'auto' | 'low' | 'high' };
      return { type: 'image_url', image_url: image.detail ? { url: image.url, detail: image.detail } : { url: image.url } };
    }
    throw new GatewayError('invalid_request', `Cohere does not accept content parts of type '${part.type}'.`, { param: `${param}[${i}]` });
  });
}

/**
 * Converts common-schema messages to Cohere v2 chat messages. System and developer turns become `system`;
 * user turns keep text and `image_url` parts (data: and http(s) URLs, as v2 accepts both); an assistant turn
 * with tool calls sends its text as `tool_plan`; tool results carry `tool_call_id`.
 * @see https://docs.cohere.com/reference/chat#request.body.messages
 */
export function convertToCohereMessages(messages: ChatMessage[]): CohereMessage[] {
  return messages.map((m, i): CohereMessage => {
    const param = `messages[${i}].content`;
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(m.content, param) };
      case 'user':
        return { role: 'user', content: userContent(m.content, param) };
      case 'assistant': {
        const text = textOf(m.content, param);
        if (m.tool_calls?.length) {
          return {
            role: 'assistant',
            ...(text ? { tool_plan: text } : {}),
            tool_calls: m.tool_calls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.function.name, arguments: c.function.arguments },
            })),
          };
        }
        return { role: 'assistant', content: text };
      }
      case 'tool':
        if (!m.tool_call_id)
          throw new GatewayError('invalid_request', 'A tool message needs tool_call_id.', { param: `messages[${i}].tool_call_id` });
        return { role: 'tool', tool_call_id: m.tool_call_id, content: textOf(m.content, param) };
      default:
        throw new GatewayError('invalid_request', `Cohere does not accept messages with role '${m.role}'.`, {
          param: `messages[${i}].role`,
        });
    }
  });
}
