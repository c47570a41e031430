import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { FORWARDS_TEXT, handleDataPlane } from '../../pipeline/handle-data-plane.js';
import { ChatCompletionBody } from '../../../foundation/spec/chat-completion-body.js';

/** POST /v1/chat/completions. */
export function registerChatCompletions(app: FastifyInstance, deps: GatewayDeps): void {
  app.post(
    '/v1/chat/completions',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'chat' },
      schema: { body: ChatCompletionBody, tags: ['data plane'], summary: 'Create a chat completion through the routing config' },
    },
    (request, reply) => handleDataPlane(deps, request, reply, 'chat', request.body as Record<string, unknown>, FORWARDS_TEXT),
  );
}
