import { AZURE_AI_SETTINGS } from './azure-ai-settings.js';
import type { ModelInfo } from '../../foundation/spec/models.js';
import { isObject } from '../../foundation/lib/json.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/create-openai-compatible-provider.js';
import { baseUrlOf, openAIHeaders, type OpenAICompatibleSpec } from '../openai-compatible/openai-compatible-spec.js';
import { mapOpenAIError } from '../openai-compatible/map-openai-error.js';
import { joinUrl } from '../openai-compatible/url.js';
import type { CallContext, ProviderAdapter } from '../provider.js';
import { azureAIAuthHeaders, azureAIExtraHeaders } from './azure-ai-auth.js';
import { azureAIBaseUrl, azureAIPath } from './azure-ai-endpoint.js';

const NAME = 'azure-ai';

/**
 * The Azure AI Foundry (Azure AI Model Inference API) row of the OpenAI-compatible base: `/chat/completions`
 * and `/embeddings` with `?api-version=…` on a serverless, managed-compute or Foundry endpoint. Bodies, answers,
 * streams and errors (`{"error": {code, message}}`) are OpenAI-shaped.
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-api
 */
export const azureAISpec: OpenAICompatibleSpec = {
  name: NAME,
  baseUrl: 'https://{endpoint}.{region}.models.ai.azure.com',
  keyOptional: true,
  without: ['completions'],
  resolveBaseUrl: azureAIBaseUrl,
  authHeaders: (_key, target) => azureAIAuthHeaders(target),
  extraHeaders: (target) => ({ ...azureAIExtraHeaders(target), ...(target.apiKey ? {} : azureAIAuthHeaders(target)) }),
  resolvePath: (path, _body, target) => azureAIPath(path, target),
  settings: AZURE_AI_SETTINGS,
};

/**
 * Lists the one model behind the endpoint from `GET /info` (`model_name`, `model_provider_name`).
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-info
 */
async function listAzureAIModels(ctx: CallContext): Promise<ModelInfo[]> {
  const url = joinUrl(baseUrlOf(azureAISpec, ctx.target), azureAIPath('/info', ctx.target));
  const info = await ctx.http.getJson(
    { url, headers: openAIHeaders(azureAISpec, ctx.target), signal: ctx.signal },
    NAME,
    (status, body, headers) => mapOpenAIError(NAME, status, body, headers),
  );
  if (!isObject(info) || typeof info.model_name !== 'string') return [];
  const owner = typeof info.model_provider_name === 'string' ? info.model_provider_name : NAME;
  return [{ id: info.model_name, object: 'model', created: 0, owned_by: owner, provider: NAME }];
}

/**
 * Azure AI Foundry model inference (serverless APIs, managed compute, Foundry resources).
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-api
 */
export const azureAIProvider: ProviderAdapter = { ...createOpenAICompatibleProvider(azureAISpec), listModels: listAzureAIModels };
