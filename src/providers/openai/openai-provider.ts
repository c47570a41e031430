import { createOpenAICompatibleProvider } from '../openai-compatible/create-openai-compatible-provider.js';

/**
 * OpenAI itself: the common schema is its native schema.
 * @see https://platform.openai.com/docs/api-reference
 */
export const openaiProvider = createOpenAICompatibleProvider({
  name: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  responses: true,
  resources: true,
});
