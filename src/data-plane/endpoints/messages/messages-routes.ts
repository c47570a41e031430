import type { FastifyInstance } from 'fastify';
import { errorHandler as routeErrorHandler } from '../../pipeline/error-handler.js';
import type { GatewayDeps } from '../../pipeline/deps.js';
import { recordRefusal } from '../../pipeline/record-refusal.js';
import type { MessagesRequest } from '../../../foundation/spec/messages.js';
import { countMessageTokens } from './count-message-tokens.js';
import { createMessage } from './create-message.js';
import { CountTokensBody, MessagesBody } from './messages-body.js';

/** `POST /v1/messages` and `POST /v1/messages/count_tokens` (the Anthropic Messages API). */
export function registerMessagesRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['data plane'];
  // The gateway's error shape with the Messages API's top-level `"type": "error"`: Anthropic clients and gateway clients both read it.
  const errorHandler = routeErrorHandler(
    deps.logger,
    (body) => ({ type: 'error', ...body }),
    (request, error) => recordRefusal(deps, request, error),
  );
  app.post(
    '/v1/messages',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'messages' },
      schema: { body: MessagesBody, tags, summary: 'Create a message (Anthropic Messages API) through the routing config' },
      errorHandler,
    },
    (request, reply) => createMessage(deps, request, reply, request.body as MessagesRequest),
  );
  app.post(
    '/v1/messages/count_tokens',
    {
      config: { permission: 'completions.write', forwardsBody: true, dataPlane: 'messages_count_tokens' },
      schema: { body: CountTokensBody, tags, summary: 'Count the input tokens of a Messages API body' },
      errorHandler,
    },
    (request, reply) => countMessageTokens(deps, request, reply, request.body as MessagesRequest),
  );
}
