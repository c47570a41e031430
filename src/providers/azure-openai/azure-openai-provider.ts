import { AZURE_OPENAI_SETTINGS } from './azure-openai-settings.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/create-openai-compatible-provider.js';
import type { OpenAICompatibleSpec } from '../openai-compatible/openai-compatible-spec.js';
import type { CallContext, EndpointAdapter, ProviderAdapter, ProviderEndpoints } from '../provider.js';
import { azureOpenAIAuthHeaders, withEntraToken } from './azure-openai-auth.js';
import { azureApiVersion, azureResourceBaseUrl, resolveAzureDeployment } from './azure-openai-deployment.js';

const NAME = 'azure-openai';

/**
 * The Azure OpenAI row of the OpenAI-compatible base: base URL `https://{resource}.openai.azure.com/openai`
 * (or `custom_host`), paths `/deployments/{deployment}/{chat/completions|completions|embeddings|images/generations}?api-version=…`,
 * `api-key` or `Authorization` auth. Bodies, answers and errors are OpenAI-shaped.
 * @see https://learn.microsoft.com/azure/ai-services/openai/reference
 */
export const azureOpenAISpec: OpenAICompatibleSpec = {
  name: NAME,
  baseUrl: 'https://{resource}.openai.azure.com/openai',
  keyOptional: true,
  resolveBaseUrl: azureResourceBaseUrl,
  responses: true,
  resources: true,
  settings: AZURE_OPENAI_SETTINGS,
  authHeaders: (_key, target) => azureOpenAIAuthHeaders(target),
  extraHeaders: (target) => (target.apiKey ? {} : azureOpenAIAuthHeaders(target)),
  resolvePath(path, body, target) {
    if (path === '/models') return `/models?api-version=${encodeURIComponent(azureApiVersion(target))}`;
    // The Responses API is served per resource, not per deployment: `model` names the deployment.
    if (path === '/responses') return `/responses?api-version=${encodeURIComponent(azureApiVersion(target))}`;
    // Files, batches and fine-tuning jobs are resource-level too (their path may carry a query already).
    if (/^\/(files|batches|fine_tuning)(\/|\?|$)/.test(path))
      return `${path}${path.includes('?') ? '&' : '?'}api-version=${encodeURIComponent(azureApiVersion(target))}`;
    const model = typeof body?.model === 'string' ? body.model : undefined;
    const { deployment, apiVersion } = resolveAzureDeployment(target, model);
    return `/deployments/${encodeURIComponent(deployment)}${path}?api-version=${encodeURIComponent(apiVersion)}`;
  },
};

function withEntra<Req, Res, Chunk>(adapter: EndpointAdapter<Req, Res, Chunk>): EndpointAdapter<Req, Res, Chunk> {
  return {
    ...adapter,
    async buildRequest(req, ctx) {
      const call = await adapter.buildRequest(req, ctx);
      return { ...call, headers: await withEntraToken(call.headers, ctx, NAME) };
    },
  };
}

function build(): ProviderAdapter {
  const base = createOpenAICompatibleProvider(azureOpenAISpec);
  const { chat, completions, embeddings, images, responses } = base.endpoints;
  const endpoints: ProviderEndpoints = {
    ...(chat ? { chat: withEntra(chat) } : {}),
    ...(completions ? { completions: withEntra(completions) } : {}),
    ...(embeddings ? { embeddings: withEntra(embeddings) } : {}),
    ...(images ? { images: withEntra(images) } : {}),
    ...(responses ? { responses: withEntra(responses) } : {}),
  };
  const resources = base.resources;
  if (!resources) return { ...base, endpoints };
  const buildCall = async (path: string, ctx: CallContext) => {
    const call = await resources.buildCall(path, ctx);
    return { ...call, headers: await withEntraToken(call.headers, ctx, NAME) };
  };
  return { ...base, endpoints, resources: { kinds: resources.kinds, buildCall } };
}

/**
 * Azure OpenAI Service: deployments chosen by config (`deployment_id`, or `deployments[]` by model alias),
 * API key, static Entra token (`Authorization`) or Entra client credentials.
 * @see https://learn.microsoft.com/azure/ai-services/openai/reference
 */
export const azureOpenAIProvider: ProviderAdapter = build();
