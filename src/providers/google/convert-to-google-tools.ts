import type { ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { isObject } from '../../foundation/lib/json.js';
import { convertToGoogleSchema } from './convert-to-google-schema.js';

/**
 * Maps common function tools to one Gemini `functionDeclarations` tool. Parameter schemas are reduced
 * to the subset Gemini accepts; an object schema without properties is left out (Gemini rejects it).
 * @see https://ai.google.dev/api/caching#Tool
 */
export function convertToGoogleTools(tools: ChatCompletionRequest['tools']): Array<Record<string, unknown>> | undefined {
  const functions = (tools ?? []).filter((t) => t.type === 'function' && isObject(t.function));
  if (functions.length === 0) return undefined;
  const functionDeclarations = functions.map((t) => {
    const decl: Record<string, unknown> = { name: t.function.name };
    if (t.function.description) decl.description = t.function.description;
    const params = t.function.parameters;
    if (isObject(params) && !(params.type === 'object' && (!isObject(params.properties) || Object.keys(params.properties).length === 0))) {
      decl.parameters = convertToGoogleSchema(params);
    }
    return decl;
  });
  return [{ functionDeclarations }];
}

/**
 * Maps `tool_choice` to `toolConfig.functionCallingConfig`: auto → AUTO, required → ANY, none → NONE,
 * a named function → ANY restricted to that name.
 * @see https://ai.google.dev/api/caching#ToolConfig
 */
export function convertToGoogleToolConfig(choice: ChatCompletionRequest['tool_choice']): Record<string, unknown> | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  return undefined;
}
