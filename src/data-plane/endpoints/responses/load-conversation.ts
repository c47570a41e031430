import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import type { ResponseItem } from '../../../foundation/spec/responses.js';
import { getResponse, type StoredResponse } from '../../../infra/store/repos/responses.js';
import type { Store } from '../../../infra/store/store.js';

/** Item types that carry a conversation over chat completions (others are dropped from earlier turns). */
const CONVERSATION_TYPES = new Set(['message', 'function_call', 'function_call_output']);

/** Longest chain of `previous_response_id` links followed. */
const MAX_TURNS = 1000;

/**
 * The conversation before a request with `previous_response_id`: for each earlier stored response,
 * oldest first, its input items then its output items. Instructions of earlier turns are not carried
 * over (as in the Responses API). The chain stops at a response no longer stored; the direct
 * predecessor must exist (400 otherwise).
 * @see https://platform.openai.com/docs/guides/conversation-state
 */
export async function loadConversation(store: Store, previous: StoredResponse | undefined, previousId: string): Promise<ResponseItem[]> {
  if (!previous)
    throw new GatewayError('invalid_request', `Previous response with id '${previousId}' not found.`, {
      param: 'previous_response_id',
      publicCode: 'previous_response_not_found',
    });
  const turns: ResponseItem[][] = [];
  const seen = new Set<string>();
  let current: StoredResponse | undefined = previous;
  while (current && !seen.has(current.id) && turns.length < MAX_TURNS) {
    seen.add(current.id);
    turns.unshift([...current.input_items, ...current.response.output].filter((i) => CONVERSATION_TYPES.has(i.type)));
    current = current.previous_response_id ? await getResponse(store, current.previous_response_id, current.workspace_id) : undefined;
  }
  return turns.flat();
}

/**
 * Earlier turns as input a native Responses host accepts without knowing their ids: messages as
 * `{role, content}` (assistant text as a string), function calls and outputs without ids.
 */
export function toNativeInput(items: readonly ResponseItem[]): Record<string, unknown>[] {
  return items.map((item) => {
    if (item.type === 'function_call') return { type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments };
    if (item.type === 'function_call_output') return { type: 'function_call_output', call_id: item.call_id, output: item.output };
    if (item.role === 'assistant') {
      const text = Array.isArray(item.content)
        ? item.content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('')
        : String(item.content ?? '');
      return { type: 'message', role: 'assistant', content: text };
    }
    return { type: 'message', role: item.role, content: item.content };
  });
}
