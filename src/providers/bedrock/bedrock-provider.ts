import { BEDROCK_SETTINGS } from './bedrock-settings.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import type { EndpointAdapter, ProviderAdapter } from '../provider.js';
import { buildConverseCall, mapConverseResponse } from './bedrock-chat.js';
import { createBedrockStreamMapper } from './bedrock-stream.js';
import { bedrockEmbeddings } from './bedrock-embeddings.js';
import { mapBedrockError } from './bedrock-error.js';
import { bedrockImages } from './bedrock-images.js';
import { bedrockRerank } from './bedrock-rerank.js';
import { bedrockMessagesEndpoint } from './bedrock-messages.js';

const chat: EndpointAdapter<ChatCompletionRequest, ChatCompletion, ChatCompletionChunk> = {
  buildRequest: buildConverseCall,
  mapResponse: mapConverseResponse,
  createStreamMapper: createBedrockStreamMapper,
};

/**
 * AWS Bedrock Runtime ("cloud1"): chat through Converse / ConverseStream, embeddings through
 * InvokeModel (Titan, Cohere), images through InvokeModel (Titan Image Generator, Stability), rerank
 * through Agent Runtime `/rerank`, the Messages API for Anthropic models through InvokeModel /
 * InvokeModelWithResponseStream in Bedrock's native Anthropic format, SigV4-signed with `cloud1_*` credentials.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_Operations_Amazon_Bedrock_Runtime.html
 */
export const bedrockProvider: ProviderAdapter = {
  name: 'bedrock',
  endpoints: { chat, embeddings: bedrockEmbeddings, images: bedrockImages, rerank: bedrockRerank, messages: bedrockMessagesEndpoint },
  mapError: mapBedrockError,
  settings: BEDROCK_SETTINGS,
};
