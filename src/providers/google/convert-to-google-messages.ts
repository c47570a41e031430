import type { ChatMessage, ContentPart, ToolCall } from '../../foundation/spec/chat.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { tryParseJson, isObject } from '../../foundation/lib/json.js';

/** One Gemini `Part` (text, inlineData, fileData, functionCall, functionResponse, …). */
export type GooglePart = Record<string, unknown>;

/** One Gemini `Content`: a turn of the conversation. */
export interface GoogleContent {
  role: 'user' | 'model';
  parts: GooglePart[];
}

/** A common tool call that may carry a Gemini thought signature (Google's OpenAI-compatibility field). */
export interface GoogleToolCall extends ToolCall {
  extra_content?: { google?: { thought_signature?: string } };
}

/** The dummy signature Google documents for function calls that did not come from Gemini. */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  mov: 'video/mov',
  webm: 'video/webm',
};

/** Guesses a MIME type from a URL's file extension (`image/jpeg` when unknown). */
export function guessMimeType(url: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return MIME_BY_EXTENSION[ext] ?? 'image/jpeg';
}

/**
 * Maps a URL to a media part: a `data:` URL becomes `inlineData`, an http(s) or `gs://` URL `fileData`.
 * @see https://ai.google.dev/api/caching#Part
 */
export function mediaPart(url: string, mimeType?: string): GooglePart {
  const data = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (data) return { inlineData: { mimeType: data[1] ?? mimeType ?? 'application/octet-stream', data: data[2] } };
  if (/^(https?|gs):\/\//i.test(url)) return { fileData: { fileUri: url, mimeType: mimeType ?? guessMimeType(url) } };
  throw new GatewayError(
    'invalid_request',
    'An image or file URL must be a data: URL with base64 content, an http(s) URL or a gs:// URL.',
    {
      param: 'messages',
    },
  );
}

function partOf(part: ContentPart): GooglePart | undefined {
  if (part.type === 'text' && typeof part.text === 'string') return { text: part.text };
  if (part.type === 'image_url' && isObject(part.image_url) && typeof part.image_url.url === 'string') return mediaPart(part.image_url.url);
  if (part.type === 'input_audio' && isObject(part.input_audio) && typeof part.input_audio.data === 'string') {
    return { inlineData: { mimeType: `audio/${String(part.input_audio.format ?? 'wav')}`, data: part.input_audio.data } };
  }
  if (part.type === 'file' && isObject(part.file)) {
    const url = part.file.file_data ?? part.file.file_id;
    if (typeof url === 'string') return mediaPart(url, typeof part.file.mime_type === 'string' ? part.file.mime_type : undefined);
  }
  return undefined;
}

/** Parts of a message's content (a string or content parts). */
export function partsOf(content: ChatMessage['content']): GooglePart[] {
  if (typeof content === 'string') return content.length ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.map(partOf).filter((p): p is GooglePart => p !== undefined);
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
}

function functionCallPart(call: GoogleToolCall, needsSignature: boolean): GooglePart {
  const args = tryParseJson(call.function.arguments || '{}');
  const part: GooglePart = { functionCall: { name: call.function.name, args: isObject(args) ? args : {} } };
  const signature = call.extra_content?.google?.thought_signature;
  if (signature) part.thoughtSignature = signature;
  else if (needsSignature) part.thoughtSignature = SKIP_SIGNATURE;
  return part;
}

function functionResponsePart(name: string, content: ChatMessage['content']): GooglePart {
  const text = textOf(content);
  const parsed = tryParseJson(text);
  return { functionResponse: { name, response: isObject(parsed) ? parsed : { content: parsed ?? text } } };
}

/** Options of the message conversion. */
export interface ConvertOptions {
  /** Gemini 3 models reject function calls without a thought signature; a dummy one is sent when the client lost it. */
  requireThoughtSignatures?: boolean;
}

/**
 * Converts common chat messages to Gemini `contents` plus a `systemInstruction` (from system and
 * developer messages). Assistant turns use role `model`; tool results become `functionResponse` parts
 * named after the matching tool call; consecutive turns of the same role are merged.
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export function convertToGoogleMessages(
  messages: ChatMessage[],
  opts: ConvertOptions = {},
): { contents: GoogleContent[]; systemInstruction?: { parts: GooglePart[] } } {
  const system: GooglePart[] = [];
  const contents: GoogleContent[] = [];
  const toolNames = new Map<string, string>();
  const push = (role: GoogleContent['role'], parts: GooglePart[]): void => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((msg, i) => {
    switch (msg.role) {
      case 'system':
      case 'developer':
        system.push(...partsOf(msg.content).filter((p) => 'text' in p));
        break;
      case 'user':
        push('user', partsOf(msg.content));
        break;
      case 'assistant': {
        const parts = partsOf(msg.content);
        for (const call of (msg.tool_calls ?? []) as GoogleToolCall[]) {
          toolNames.set(call.id, call.function.name);
          parts.push(functionCallPart(call, opts.requireThoughtSignatures === true));
        }
        push('model', parts);
        break;
      }
      case 'tool':
      case 'function': {
        const name = (msg.tool_call_id && toolNames.get(msg.tool_call_id)) || msg.name;
        if (!name) {
          throw new GatewayError('invalid_request', `messages[${i}]: no assistant tool call has the id '${msg.tool_call_id ?? ''}'.`, {
            param: `messages[${i}].tool_call_id`,
          });
        }
        push('user', [functionResponsePart(name, msg.content)]);
        break;
      }
      default:
        throw new GatewayError('invalid_request', `messages[${i}].role '${String(msg.role)}' is not supported.`, {
          param: `messages[${i}].role`,
        });
    }
  });
  return system.length ? { contents, systemInstruction: { parts: system } } : { contents };
}
