import { Type } from 'typebox';
import { urlSetting, type ProviderSettings } from '../provider-settings.js';

/**
 * Bedrock's settings: AWS credentials and region for SigV4 signing.
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 */
export const BEDROCK_SETTINGS: ProviderSettings = {
  cloud1_access_key_id: Type.String(),
  cloud1_secret_access_key: Type.String(),
  cloud1_region: urlSetting('cloud1_region'),
  cloud1_session_token: Type.String(),
};
