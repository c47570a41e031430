import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderTarget } from '../provider.js';
import { azureAIHosting } from './azure-ai-endpoint.js';

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Auth headers of an Azure AI Model Inference call. Config `Authorization` (`Bearer <Entra token>`) is sent as is;
 * otherwise the key goes as `Authorization: Bearer <key>` to serverless and managed endpoints and as `api-key`
 * to an AI Foundry resource. Throws `invalid_request` when neither is configured.
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-api#authentication
 */
export function azureAIAuthHeaders(target: ProviderTarget): Record<string, string> {
  const authorization = str(target.config.Authorization);
  if (authorization) return { authorization: /^bearer /i.test(authorization) ? authorization : `Bearer ${authorization}` };
  if (!target.apiKey) {
    throw new GatewayError('invalid_request', "Azure AI needs 'api_key' or config 'Authorization: Bearer <token>'.", { param: 'api_key' });
  }
  return azureAIHosting(target) === 'foundry' ? { 'api-key': target.apiKey } : { authorization: `Bearer ${target.apiKey}` };
}

/**
 * Headers every Azure AI call carries: `extra-parameters: drop` (parameters a model does not know are dropped
 * instead of refused with 422) and, on managed compute, `azureml-model-deployment: <cloud3_deployment_name>`
 * to pin the deployment behind the endpoint.
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-api#extensibility
 */
export function azureAIExtraHeaders(target: ProviderTarget): Record<string, string> {
  const headers: Record<string, string> = { 'extra-parameters': 'drop' };
  const deployment = str(target.config.cloud3_deployment_name);
  if (deployment && azureAIHosting(target) === 'managed') headers['azureml-model-deployment'] = deployment;
  return headers;
}
