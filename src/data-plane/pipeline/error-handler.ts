import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toGatewayError } from '../../foundation/errors/to-gateway-error.js';
import type { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ErrorBody } from '../../foundation/spec/error-body.js';
import { logFailedRequest } from '../../infra/observability/log-failed-request.js';
import type { Logger } from '../../infra/observability/logger.js';
import { failedRequestOf } from './failed-request-of.js';

/** Accounts for a refused request (request log, metrics) that its route did not account for itself. */
export type AccountRefusal = (request: FastifyRequest, error: GatewayError) => void;

/**
 * The one error handler: any thrown value becomes a GatewayError answered in the gateway's error shape
 * (`shape` may add members, as the Messages routes' `"type": "error"`), logged once as a failed
 * request (an unexpected one also at `error`) and given to `account` (a data-plane route's refusal
 * gets its request-log row and metrics there); an answer already under way is cut instead.
 */
export function errorHandler(logger: Logger, shape: (body: ErrorBody) => unknown = (body) => body, account?: AccountRefusal) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const g = toGatewayError(err);
    if (g.status >= 500 && g.code === 'internal_error') logger.error({ err, url: request.url, requestId: request.id }, 'unhandled error');
    logFailedRequest(logger, g, failedRequestOf(request));
    account?.(request, g);
    if (g.headers) reply.headers(g.headers);
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy();
      return;
    }
    reply.code(g.status).header('content-type', 'application/json').send(shape(g.toBody()));
  };
}
