import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toGatewayError } from '../errors/to-gateway-error.js';
import { logFailedRequest } from '../observability/log-failed-request.js';
import { failedRequestOf } from '../server/failed-request-of.js';
import type { GatewayDeps } from '../server/deps.js';
import type { MessagesRequest } from '../spec/messages.js';
import { countMessageTokens } from './count-message-tokens.js';
import { createMessage } from './create-message.js';
import { CountTokensBody, MessagesBody } from './messages-body.js';

/**
 * Errors of the Messages routes: the decisions.md shape with the Messages API's top-level
 * `"type": "error"` added, so Anthropic clients and gateway clients both read them.
 */
function messagesError(deps: GatewayDeps) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const g = toGatewayError(err);
    if (g.status >= 500 && g.code === 'internal_error') deps.logger.error({ err, url: request.url, requestId: request.id }, 'unhandled error');
    logFailedRequest(deps.logger, g, failedRequestOf(request));
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy();
      return;
    }
    if (g.headers) reply.headers(g.headers);
    reply.code(g.status).header('content-type', 'application/json').send({ type: 'error', ...g.toBody() });
  };
}

/** `POST /v1/messages` and `POST /v1/messages/count_tokens` (the Anthropic Messages API). */
export function registerMessagesRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['data plane'];
  const errorHandler = messagesError(deps);
  app.post('/v1/messages', { config: { permission: 'completions.write' }, schema: { body: MessagesBody, tags, summary: 'Create a message (Anthropic Messages API) through the routing config' }, errorHandler }, (request, reply) =>
    createMessage(deps, request, reply, request.body as MessagesRequest),
  );
  app.post('/v1/messages/count_tokens', { config: { permission: 'completions.write' }, schema: { body: CountTokensBody, tags, summary: 'Count the input tokens of a Messages API body' }, errorHandler }, (request, reply) =>
    countMessageTokens(deps, request, reply, request.body as MessagesRequest),
  );
}
