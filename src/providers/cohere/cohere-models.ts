import type { ModelInfo } from '../../spec/models.js';
import { isObject, tryParseJson } from '../../lib/json.js';
import type { CallContext } from '../provider.js';
import { cohereBaseUrl, cohereHeaders } from './cohere-auth.js';
import { mapCohereError } from './cohere-error.js';

/**
 * Lists Cohere's models (`GET /v1/models`, `{models: [{name, endpoints}]}`), one page of up to 1000.
 * @see https://docs.cohere.com/reference/list-models
 */
export async function listCohereModels(ctx: CallContext): Promise<ModelInfo[]> {
  const headers = cohereHeaders(ctx.target);
  delete headers['content-type'];
  const res = await ctx.http.sendText({ url: `${cohereBaseUrl(ctx.target)}/v1/models?page_size=1000`, method: 'GET', headers, signal: ctx.signal }, 'cohere');
  if (res.status < 200 || res.status >= 300) throw mapCohereError(res.status, res.text, res.headers);
  const body = tryParseJson(res.text);
  const models = isObject(body) && Array.isArray(body.models) ? body.models.filter(isObject) : [];
  return models
    .filter((m) => typeof m.name === 'string')
    .map((m): ModelInfo => ({ id: m.name as string, object: 'model', created: 0, owned_by: 'cohere', provider: 'cohere' }));
}
