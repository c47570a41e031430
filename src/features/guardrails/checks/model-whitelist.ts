/**
 * default.modelWhitelist {models}: passes when the request's model (`request.model`, else the body's
 * `model`) is one of `models`. An entry ending in `*` matches by prefix (`gpt-4o*`). A request
 * without a model fails. Reads the request only; works before and after the request.
 */
import { BOTH_PHASES, defineCheck } from '../check.js';
import { ParamReader } from '../params.js';

export const modelWhitelist = defineCheck({
  id: 'default.modelWhitelist',
  phases: BOTH_PHASES,
  reads: 'request',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    return { models: p.stringArray('models') };
  },
  evaluate(input, { models }) {
    const model = input.request.model ?? (typeof input.request.body.model === 'string' ? input.request.body.model : undefined);
    if (!model) return { verdict: false, explanation: 'The request names no model.', data: { model: null } };
    const verdict = models.some((m) => (m.endsWith('*') ? model.startsWith(m.slice(0, -1)) : m === model));
    return { verdict, explanation: verdict ? `Model ${model} is allowed.` : `Model ${model} is not in the allowed list.`, data: { model } };
  },
});
