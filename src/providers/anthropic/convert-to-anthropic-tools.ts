import type { ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { isObject } from '../../foundation/lib/json.js';

/** The `tools` and `tool_choice` members of a Messages API body. */
export interface AnthropicToolSettings {
  tools?: Array<Record<string, unknown>>;
  tool_choice?: Record<string, unknown>;
}

/**
 * Converts common-schema tools: a `function` tool → `{name, description, input_schema}` (an empty
 * object schema when it has no parameters); other tool objects (Anthropic server tools such as
 * `web_search_20250305`) pass through. `tool_choice`: `auto` → `{type:'auto'}`, `required` → `{type:'any'}`,
 * `none` → `{type:'none'}`, `{function:{name}}` → `{type:'tool', name}`; `parallel_tool_calls: false` sets
 * `disable_parallel_tool_use`. Nothing is sent when the request has no tools.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 */
export function convertToAnthropicTools(req: ChatCompletionRequest): AnthropicToolSettings {
  if (!Array.isArray(req.tools) || req.tools.length === 0) return {};
  const tools = req.tools.map((tool): Record<string, unknown> => {
    if (tool.type !== 'function' || !isObject(tool.function)) return { ...(tool as unknown as Record<string, unknown>) };
    const fn = tool.function;
    const out: Record<string, unknown> = { name: fn.name, input_schema: fn.parameters ?? { type: 'object', properties: {} } };
    if (fn.description) out.description = fn.description;
    const cacheControl = (tool as unknown as Record<string, unknown>).cache_control;
    if (isObject(cacheControl)) out.cache_control = cacheControl;
    return out;
  });
  const choice = toolChoice(req);
  return choice ? { tools, tool_choice: choice } : { tools };
}

function toolChoice(req: ChatCompletionRequest): Record<string, unknown> | undefined {
  const c = req.tool_choice;
  let out: Record<string, unknown> | undefined;
  if (c === 'auto') out = { type: 'auto' };
  else if (c === 'required') out = { type: 'any' };
  else if (c === 'none') return { type: 'none' };
  else if (isObject(c) && isObject(c.function) && typeof c.function.name === 'string') out = { type: 'tool', name: c.function.name };
  if (req.parallel_tool_calls === false) out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}
