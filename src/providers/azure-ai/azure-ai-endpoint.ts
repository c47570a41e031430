import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderTarget } from '../provider.js';
import { urlField } from '../url-fields.js';

/** Version of the Azure AI Model Inference API used when `cloud3_api_version` is not set. */
export const AZURE_AI_DEFAULT_API_VERSION = '2024-05-01-preview';

/** How the model is hosted: a serverless API (models-as-a-service), managed compute, or an AI Foundry resource. */
export type AzureAIHosting = 'serverless' | 'managed' | 'foundry';

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The hosting kind of a target: `cloud3_deployment_type` (`serverless` | `managed`, default `serverless`), or
 * `foundry` when only `cloud3_resource_name` names the host.
 */
export function azureAIHosting(target: ProviderTarget): AzureAIHosting {
  const c = target.config;
  if (c.cloud3_deployment_type === 'managed') return 'managed';
  if (!str(c.cloud3_endpoint_name) && !str(c.cloud3_deployment_name) && str(c.cloud3_resource_name)) return 'foundry';
  return 'serverless';
}

function required(value: string | undefined, param: string, what: string): string {
  if (!value) throw new GatewayError('invalid_request', `Azure AI needs config '${param}' (${what}) or 'custom_host'.`, { param });
  return value;
}

/**
 * The base URL of an Azure AI Model Inference endpoint (`custom_host` replaces it before this is asked):
 * - serverless: `https://{cloud3_endpoint_name or cloud3_deployment_name}.{cloud3_region}.models.ai.azure.com`
 * - managed: `https://{cloud3_endpoint_name}.{cloud3_region}.inference.ml.azure.com` (the model inference routes
 *   `/chat/completions` and `/embeddings` sit at the endpoint root; `/score` is the raw scoring route)
 * - foundry: `https://{cloud3_resource_name}.services.ai.azure.com/models` (the body's `model` names the deployment)
 *
 * Each field is checked against its pattern (`URL_FIELDS`) before it is placed in the host.
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-api
 */
export function azureAIBaseUrl(target: ProviderTarget): string {
  const c = target.config;
  const hosting = azureAIHosting(target);
  if (hosting === 'foundry') return `https://${encodeURIComponent(urlField(c, 'cloud3_resource_name')!)}.services.ai.azure.com/models`;
  const region = required(urlField(c, 'cloud3_region'), 'cloud3_region', 'the Azure region, e.g. eastus2');
  if (hosting === 'managed') {
    const endpoint = required(urlField(c, 'cloud3_endpoint_name'), 'cloud3_endpoint_name', 'the managed online endpoint name');
    return `https://${encodeURIComponent(endpoint)}.${encodeURIComponent(region)}.inference.ml.azure.com`;
  }
  const endpoint = required(
    urlField(c, 'cloud3_endpoint_name') ?? urlField(c, 'cloud3_deployment_name'),
    'cloud3_endpoint_name',
    'the serverless endpoint name',
  );
  return `https://${encodeURIComponent(endpoint)}.${encodeURIComponent(region)}.models.ai.azure.com`;
}

/** Appends `api-version` (`cloud3_api_version`, default {@link AZURE_AI_DEFAULT_API_VERSION}) to a route. */
export function azureAIPath(path: string, target: ProviderTarget): string {
  const version = urlField(target.config, 'cloud3_api_version') ?? AZURE_AI_DEFAULT_API_VERSION;
  return `${path}?api-version=${encodeURIComponent(version)}`;
}
