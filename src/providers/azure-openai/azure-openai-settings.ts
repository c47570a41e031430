import { Type } from 'typebox';
import { urlSetting, type ProviderSettings } from '../provider-settings.js';

const Deployment = Type.Object(
  {
    deployment_id: urlSetting('deployment_id'),
    alias: Type.String(),
    api_version: urlSetting('api_version'),
    is_default: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/**
 * Azure OpenAI's settings: the resource, the deployment (one, or several chosen by model alias), the
 * API version, and Entra ID client credentials.
 * @see https://learn.microsoft.com/azure/ai-services/openai/reference
 */
export const AZURE_OPENAI_SETTINGS: ProviderSettings = {
  resource_name: urlSetting('resource_name'),
  deployment_id: urlSetting('deployment_id'),
  api_version: urlSetting('api_version'),
  deployments: Type.Array(Deployment),
  cloud3_resource_name: urlSetting('cloud3_resource_name'),
  cloud3_deployment_id: urlSetting('cloud3_deployment_id'),
  cloud3_api_version: urlSetting('cloud3_api_version'),
  cloud3_entra_tenant_id: Type.String(),
  cloud3_entra_client_id: Type.String(),
  cloud3_entra_client_secret: Type.String(),
  cloud3_entra_scope: Type.String(),
  cloud3_entra_authority_host: Type.String(),
};
