/**
 * default.notNull {}: after the request, passes when the answer has non-blank text or tool calls.
 * Reads the response text (and the response body for tool calls).
 */
import { defineCheck } from '../check.js';
import { ParamReader } from '../params.js';
import { hasToolCalls } from '../text-of.js';

export const notNull = defineCheck({
  id: 'default.notNull',
  phases: ['afterRequestHook'],
  reads: 'response',
  parse(params, path) {
    new ParamReader(params, path);
    return {};
  },
  evaluate(input) {
    const verdict = (input.responseText ?? '').trim().length > 0 || hasToolCalls(input.response?.body);
    return { verdict, explanation: verdict ? 'The answer is not empty.' : 'The answer is empty.' };
  },
});
