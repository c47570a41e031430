import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { ProviderTarget } from '../provider.js';
import { checkUrlField, urlField } from '../url-fields.js';

/** The GA data-plane version used when the config names none. */
export const AZURE_OPENAI_DEFAULT_API_VERSION = '2024-10-21';

/** One item of config `deployments`. */
export interface AzureDeployment {
  deployment_id: string;
  alias?: string;
  api_version?: string;
  is_default?: boolean;
}

/** The deployment and API version a call goes to. */
export interface ResolvedDeployment {
  deployment: string;
  apiVersion: string;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function deploymentsOf(config: ProviderTarget['config']): AzureDeployment[] {
  if (!Array.isArray(config.deployments)) return [];
  return config.deployments.filter((d): d is AzureDeployment => isObject(d) && typeof d.deployment_id === 'string');
}

/**
 * Chooses the deployment for a request. With config `deployments`, the request's `model` picks the item
 * whose `alias` equals it, else the `is_default` item; without them, `deployment_id` (or `cloud3_deployment_id`)
 * is used, else the model name itself (as the Azure OpenAI SDKs do). The API version comes from the chosen item,
 * else `api_version` / `cloud3_api_version`, else {@link AZURE_OPENAI_DEFAULT_API_VERSION}. The deployment and
 * version become part of the URL: each is checked against its pattern (400 naming where it came from).
 * @see https://learn.microsoft.com/azure/ai-services/openai/reference
 */
export function resolveAzureDeployment(target: ProviderTarget, model: string | undefined): ResolvedDeployment {
  const config = target.config;
  const fallbackVersion = configApiVersion(config) ?? AZURE_OPENAI_DEFAULT_API_VERSION;
  const items = deploymentsOf(config);
  if (items.length > 0) {
    const chosen = items.find((d) => model !== undefined && d.alias === model) ?? items.find((d) => d.is_default === true);
    if (!chosen) {
      throw new GatewayError(
        'invalid_request',
        `No Azure OpenAI deployment has alias '${model ?? ''}' and none is marked is_default (aliases: ${items.map((d) => d.alias).join(', ')}).`,
        { param: 'model' },
      );
    }
    const i = items.indexOf(chosen);
    const version = str(chosen.api_version);
    return {
      deployment: checkUrlField('deployment_id', chosen.deployment_id, `deployments[${i}].deployment_id`),
      apiVersion: version ? checkUrlField('api_version', version, `deployments[${i}].api_version`) : fallbackVersion,
    };
  }
  const deployment =
    urlField(config, 'deployment_id') ??
    urlField(config, 'cloud3_deployment_id') ??
    (model === undefined ? undefined : checkUrlField('deployment_id', model, 'model'));
  if (!deployment) {
    throw new GatewayError(
      'invalid_request',
      "Azure OpenAI needs a deployment: set config 'deployment_id' or 'deployments', or send 'model'.",
      {
        param: 'deployment_id',
      },
    );
  }
  return { deployment, apiVersion: fallbackVersion };
}

function configApiVersion(config: ProviderTarget['config']): string | undefined {
  return urlField(config, 'api_version') ?? urlField(config, 'cloud3_api_version');
}

/** The API version for calls outside a deployment (`/models`). */
export function azureApiVersion(target: ProviderTarget): string {
  const items = deploymentsOf(target.config);
  const byDefault = items.find((d) => d.is_default === true) ?? items[0];
  const fromItem = str(byDefault?.api_version);
  return (
    configApiVersion(target.config) ??
    (fromItem
      ? checkUrlField('api_version', fromItem, `deployments[${items.indexOf(byDefault!)}].api_version`)
      : AZURE_OPENAI_DEFAULT_API_VERSION)
  );
}

/**
 * The resource base URL `https://{resource}.openai.azure.com/openai` from `resource_name` or
 * `cloud3_resource_name`, checked against the Azure resource name pattern (`custom_host` replaces it
 * before this is asked).
 */
export function azureResourceBaseUrl(target: ProviderTarget): string {
  const resource = urlField(target.config, 'resource_name') ?? urlField(target.config, 'cloud3_resource_name');
  if (!resource) {
    throw new GatewayError('invalid_request', "Azure OpenAI needs config 'resource_name' (or 'custom_host').", { param: 'resource_name' });
  }
  return `https://${encodeURIComponent(resource)}.openai.azure.com/openai`;
}
