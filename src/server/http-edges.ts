import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { toGatewayError } from '../foundation/errors/to-gateway-error.js';
import { MAX_BODY_JSON_DEPTH, nestsDeeperThan } from '../foundation/lib/json-depth.js';

/**
 * Installs the app's JSON body parser: Fastify's own (prototype-poisoning protection included), except
 * that an empty body parses to `undefined` on a route that declares no body schema or an optional one
 * (`Type.Optional`, e.g. `POST /v1/api-keys/{id}/rotate`). SDKs send `content-type: application/json`
 * with an empty body on bodiless calls (deletes, cancels); a route with a required body schema still
 * answers 400 for it. A body nested more than MAX_BODY_JSON_DEPTH levels deep is refused with 400 before it is
 * parsed: the gateway may forward the client's text as it is, so no later serialisation would find out. The text
 * parsed is kept on the request's context (`bodyText`), unless it starts with a byte order mark.
 */
export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Only an empty body asks for the route's schema: `routeOptions` is a getter that builds an object per call.
    if (body === '') {
      const schema = request.routeOptions.schema?.body;
      if (schema === undefined || Type.IsOptional(schema as TSchema)) {
        done(null, undefined);
        return;
      }
    }
    if (nestsDeeperThan(body as string, MAX_BODY_JSON_DEPTH)) {
      done(new GatewayError('invalid_request', 'The request is nested too deeply.'), undefined);
      return;
    }
    // Kept for the data plane, which forwards the client's own text when nothing changed the body (RouteInput.sourceText);
    // not a text that starts with a byte order mark: the parser skips it, while some providers' parsers refuse it
    // (Python's `json.loads`), so that body is serialised anew.
    if (request.gw && (body as string).charCodeAt(0) !== 0xfeff) request.gw.bodyText = body as string;
    parse(request, body as string, done);
  });
}

/**
 * Fastify's `frameworkErrors`: errors found before a route runs (a malformed percent-encoding, a path
 * parameter over `maxParamLength`) leave through the one formatter, in the decisions.md shape.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const g = toGatewayError(err);
  reply.code(g.status).header('content-type', 'application/json').header('x-gateway-request-id', request.id).send(g.toBody());
}

/**
 * Node's `clientError` (via Fastify's `clientErrorHandler`): a request the HTTP parser refuses
 * (headers over the limit: 431, a malformed request: 400, a request not received in time: 408) is
 * answered on the raw socket with the decisions.md body, then the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Never write into a response already under way on this connection (keep-alive).
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const mapped = toGatewayError(err);
    const g = mapped.status >= 500 ? new GatewayError('invalid_request', 'Malformed HTTP request.') : mapped;
    const body = JSON.stringify(g.toBody());
    socket.write(
      `HTTP/1.1 ${g.status} ${STATUS_CODES[g.status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
