import { Type } from 'typebox';
import { urlSetting, type ProviderSettings } from '../provider-settings.js';
import { StringEnum } from '../../foundation/spec/string-enum.js';

/**
 * Azure AI Foundry's settings: the endpoint (serverless, managed compute or a Foundry resource), its
 * region and API version.
 * @see https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-api
 */
export const AZURE_AI_SETTINGS: ProviderSettings = {
  cloud3_region: urlSetting('cloud3_region'),
  cloud3_deployment_name: urlSetting('cloud3_deployment_name'),
  cloud3_endpoint_name: urlSetting('cloud3_endpoint_name'),
  cloud3_api_version: urlSetting('cloud3_api_version'),
  cloud3_deployment_type: StringEnum(['serverless', 'managed']),
  cloud3_resource_name: urlSetting('cloud3_resource_name'),
  cloud3_model_name: Type.String(),
};
