import type { ModelInfo } from '../../foundation/spec/models.js';
import { isObject } from '../../foundation/lib/json.js';
import type { CallContext } from '../provider.js';
import { cohereBaseUrl, cohereHeaders } from './cohere-auth.js';
import { mapCohereError } from './cohere-error.js';

/**
 * Lists Cohere's models (`GET /v1/models`, `{models: [{name, endpoints}]}`), one page of up to 1000.
 * @see https://docs.cohere.com/reference/list-models
 */
export async function listCohereModels(ctx: CallContext): Promise<ModelInfo[]> {
  const body = await ctx.http.getJson(
    { url: `${cohereBaseUrl(ctx.target)}/v1/models?page_size=1000`, headers: cohereHeaders(ctx.target), signal: ctx.signal },
    'cohere',
    mapCohereError,
  );
  const models = isObject(body) && Array.isArray(body.models) ? body.models.filter(isObject) : [];
  return models
    .filter((m) => typeof m.name === 'string')
    .map((m): ModelInfo => ({ id: m.name as string, object: 'model', created: 0, owned_by: 'cohere', provider: 'cohere' }));
}
