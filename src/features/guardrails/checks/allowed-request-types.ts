/**
 * default.allowedRequestTypes {allowedTypes}: passes when the request's endpoint kind (chat,
 * completions, embeddings, images, moderations, rerank, responses, files, batches, fine_tuning, …)
 * is in `allowedTypes`. Aliases used by other gateways are accepted: chatComplete, complete, embed,
 * imageGenerate. Reads the request only; works before and after the request.
 */
import { BOTH_PHASES, defineCheck } from '../check.js';
import { ParamReader } from '../params.js';

const ALIASES: Record<string, string> = { chatComplete: 'chat', complete: 'completions', embed: 'embeddings', imageGenerate: 'images' };

export const allowedRequestTypes = defineCheck({
  id: 'default.allowedRequestTypes',
  phases: BOTH_PHASES,
  reads: 'request',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    return { allowed: p.stringArray('allowedTypes').map((t) => ALIASES[t] ?? t) };
  },
  evaluate(input, { allowed }) {
    const endpoint = input.request.endpoint;
    const verdict = allowed.includes(endpoint);
    return {
      verdict,
      explanation: verdict ? `Request type ${endpoint} is allowed.` : `Request type ${endpoint} is not allowed.`,
      data: { endpoint, allowedTypes: allowed },
    };
  },
});
