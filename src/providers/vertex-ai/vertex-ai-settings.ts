import { Type } from 'typebox';
import { urlSetting, type ProviderSettings } from '../provider-settings.js';

/**
 * Vertex AI's settings: project, region and a service account key (exchanged for access tokens).
 * @see https://cloud.google.com/vertex-ai/docs/reference/rest
 */
export const VERTEX_AI_SETTINGS: ProviderSettings = {
  cloud2_project_id: urlSetting('cloud2_project_id'),
  cloud2_region: urlSetting('cloud2_region'),
  cloud2_service_account_json: Type.Object({}),
};
