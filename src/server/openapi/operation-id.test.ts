import { describe, expect, it } from 'vitest';
import { operationIdOf } from './operation-id.js';

describe('operationIdOf', () => {
  it.each([
    ['GET', '/v1/api-keys', 'getApiKeys'],
    ['POST', '/v1/api-keys/:id/rotate', 'postApiKeysByIdRotate'],
    ['POST', '/v1/chat/completions', 'postChatCompletions'],
    ['GET', '/v1/models/*', 'getModelsByPath'],
    ['POST', '/v1/messages/count_tokens', 'postMessagesCountTokens'],
    ['PUT', '/v1/prompts/:promptId/makeDefault', 'putPromptsByPromptIdMakeDefault'],
    ['DELETE', '/v1/workspaces/{id}/members/{user_id}', 'deleteWorkspacesByIdMembersByUserId'],
    ['GET', '/health', 'getHealth'],
  ])('%s %s is %s', (method, url, id) => {
    expect(operationIdOf(method, url)).toBe(id);
  });
});
