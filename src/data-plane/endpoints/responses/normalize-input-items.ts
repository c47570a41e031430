import { randomId } from '../../../foundation/lib/ids.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { ResponseContentPart, ResponseItem } from '../../../foundation/spec/responses.js';

/** A new item id with the Responses API's prefix for that item type (`msg_`, `fc_`, ...). */
export function itemId(prefix: 'msg' | 'fc' | 'fco' | 'rs' | 'item'): string {
  return `${prefix}_${randomId(32)}`;
}

/**
 * Turns a request's `input` (a string or a list of items) into stored input items, each with an id:
 * a string becomes one user message; messages get `type: 'message'`, content parts (`input_text` for
 * user/system/developer text, `output_text` for assistant text) and `status: 'completed'`; function calls
 * and their outputs keep their fields. Other item types are kept as sent, with an id.
 * @see https://platform.openai.com/docs/api-reference/responses/input-items
 */
export function normalizeInputItems(input: string | readonly unknown[]): ResponseItem[] {
  if (typeof input === 'string')
    return [{ id: itemId('msg'), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: input }] }];
  return input.filter(isObject).map((raw) => normalizeItem(raw));
}

function normalizeItem(raw: Record<string, unknown>): ResponseItem {
  const type = typeof raw.type === 'string' ? raw.type : 'message';
  if (type === 'message') {
    const role = typeof raw.role === 'string' ? raw.role : 'user';
    return {
      ...raw,
      id: typeof raw.id === 'string' ? raw.id : itemId('msg'),
      type,
      role,
      status: typeof raw.status === 'string' ? raw.status : 'completed',
      content: contentParts(raw.content, role),
    };
  }
  if (type === 'function_call')
    return {
      ...raw,
      type,
      id: typeof raw.id === 'string' ? raw.id : itemId('fc'),
      status: typeof raw.status === 'string' ? raw.status : 'completed',
    };
  if (type === 'function_call_output')
    return {
      ...raw,
      type,
      id: typeof raw.id === 'string' ? raw.id : itemId('fco'),
      status: typeof raw.status === 'string' ? raw.status : 'completed',
    };
  return { ...raw, type, id: typeof raw.id === 'string' ? raw.id : itemId('item') };
}

function contentParts(content: unknown, role: string): ResponseContentPart[] {
  if (typeof content === 'string')
    return [role === 'assistant' ? { type: 'output_text', text: content, annotations: [] } : { type: 'input_text', text: content }];
  if (Array.isArray(content))
    return content.filter(isObject).map((p) => ({ ...p, type: typeof p.type === 'string' ? p.type : 'input_text' }));
  return [];
}
