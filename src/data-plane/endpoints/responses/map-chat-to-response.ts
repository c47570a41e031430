import { isObject } from '../../../foundation/lib/json.js';
import type { ChatCompletion } from '../../../foundation/spec/chat.js';
import type { ResponseItem, ResponseObject } from '../../../foundation/spec/responses.js';
import { itemId } from './normalize-input-items.js';
import { finishStatus, functionCallItem, messageItem, outputTextOf, reasoningItem, responseUsage } from './response-object.js';

/**
 * A chat completion → the finished response object: reasoning (when the provider returned it), the
 * assistant message, then one `function_call` item per tool call; status from the finish reason.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function mapChatToResponse(chat: ChatCompletion, base: ResponseObject): ResponseObject {
  const choice = chat.choices?.[0];
  const message = choice?.message;
  const { status, incomplete_details } = finishStatus(choice?.finish_reason);
  const output: ResponseItem[] = [];
  if (message && typeof message.reasoning_content === 'string' && message.reasoning_content)
    output.push(reasoningItem(itemId('rs'), message.reasoning_content));
  const text = typeof message?.content === 'string' ? message.content : '';
  if (text || !message?.tool_calls?.length)
    output.push(messageItem(itemId('msg'), text, status === 'incomplete' ? 'incomplete' : 'completed'));
  for (const call of message?.tool_calls ?? []) {
    if (!isObject(call.function)) continue;
    output.push(functionCallItem(itemId('fc'), call.id, call.function.name, call.function.arguments ?? '', 'completed'));
  }
  return {
    ...base,
    model: typeof chat.model === 'string' && chat.model ? chat.model : base.model,
    status,
    incomplete_details,
    output,
    output_text: outputTextOf(output),
    usage: responseUsage(chat.usage),
  };
}
