import type { ChatMessage } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { AnthropicCacheControl, AnthropicContentBlock, AnthropicImageBlock, AnthropicTextBlock } from './anthropic-types.js';

const DATA_URL = /^data:([^;,]+)((?:;[^;,]+)*),(.*)$/s;

/** Splits a `data:` URL into media type and base64 payload; undefined when it is not a base64 data URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = DATA_URL.exec(url);
  if (!m || !m[2]!.split(';').includes('base64')) return undefined;
  return { mediaType: m[1]!, data: m[3]! };
}

/**
 * An `image_url` URL as an Anthropic image block: a base64 `data:` URL → `base64` source with its
 * media type; an http(s) URL → `url` source.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/vision
 */
export function convertImageUrl(url: string, param: string): AnthropicImageBlock {
  if (url.startsWith('data:')) {
    const parsed = parseDataUrl(url);
    if (!parsed) throw new GatewayError('invalid_request', `${param}: a data: URL image must be base64-encoded.`, { param });
    return { type: 'image', source: { type: 'base64', media_type: parsed.mediaType, data: parsed.data } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new GatewayError('invalid_request', `${param}: an image URL must be http(s) or a base64 data: URL.`, { param });
}

function cacheControlOf(part: Record<string, unknown>): { cache_control?: AnthropicCacheControl } {
  return isObject(part.cache_control) ? { cache_control: part.cache_control as unknown as AnthropicCacheControl } : {};
}

/**
 * Converts one common-schema content part: `text` → text block (empty text dropped, Anthropic refuses
 * it), `image_url` → image block, `file` with a base64 `file_data` → document block. Parts already in
 * Anthropic's shape (`image`, `document`, `thinking`, ...) pass through unchanged. `cache_control` is kept.
 */
export function convertPart(part: unknown, param: string): AnthropicContentBlock | undefined {
  if (!isObject(part)) throw new GatewayError('invalid_request', `${param}: a content part must be an object.`, { param });
  if (part.type === 'text') {
    const text = typeof part.text === 'string' ? part.text : '';
    return text ? { type: 'text', text, ...cacheControlOf(part) } : undefined;
  }
  if (part.type === 'image_url') {
    const image = isObject(part.image_url) ? part.image_url : {};
    if (typeof image.url !== 'string')
      throw new GatewayError('invalid_request', `${param}.image_url.url is required.`, { param: `${param}.image_url.url` });
    return { ...convertImageUrl(image.url, `${param}.image_url.url`), ...cacheControlOf(part) };
  }
  if (part.type === 'file') {
    const file = isObject(part.file) ? part.file : {};
    const parsed = typeof file.file_data === 'string' ? parseDataUrl(file.file_data) : undefined;
    if (!parsed)
      throw new GatewayError('invalid_request', `${param}.file.file_data: a base64 data: URL is required for this provider.`, {
        param: `${param}.file.file_data`,
      });
    return { type: 'document', source: { type: 'base64', media_type: parsed.mediaType, data: parsed.data }, ...cacheControlOf(part) };
  }
  return part as unknown as AnthropicContentBlock;
}

/** Converts a message's content (string or parts) to native blocks. */
export function convertContent(content: ChatMessage['content'], param: string): AnthropicContentBlock[] {
  if (content == null) return [];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content))
    throw new GatewayError('invalid_request', `${param}: content must be a string or an array of parts.`, { param });
  const out: AnthropicContentBlock[] = [];
  content.forEach((part, i) => {
    const block = convertPart(part, `${param}[${i}]`);
    if (block) out.push(block);
  });
  return out;
}

/** Text blocks of a system or developer message (non-text parts are refused: Anthropic's `system` is text only). */
export function convertSystemContent(content: ChatMessage['content'], param: string): AnthropicTextBlock[] {
  return convertContent(content, param).map((block) => {
    if (block.type !== 'text') throw new GatewayError('invalid_request', `${param}: system messages accept text only.`, { param });
    return block;
  });
}
