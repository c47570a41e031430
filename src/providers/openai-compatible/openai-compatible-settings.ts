import { Type } from 'typebox';
import type { ProviderSettings } from '../provider-settings.js';

/**
 * Settings every OpenAI-compatible host reads: the `OpenAI-Organization` and `OpenAI-Project` headers.
 * @see https://platform.openai.com/docs/api-reference/authentication
 */
export const OPENAI_COMPATIBLE_SETTINGS: ProviderSettings = {
  compat_organization: Type.String(),
  compat_project: Type.String(),
};
