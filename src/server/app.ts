import { uuid } from '../foundation/lib/ids.js';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { errorHandler } from '../data-plane/pipeline/error-handler.js';
import { recordRefusal } from '../data-plane/pipeline/record-refusal.js';
import type { GatewayDeps } from '../data-plane/pipeline/deps.js';
import { createAuthHook } from './middleware/auth/auth.js';
import { HttpRequestContext } from '../data-plane/pipeline/request-context.js';
import { installNulRefusal } from './middleware/refuse-nul/refuse-nul.js';
import { registerHealth } from './routes/health.js';
import { registerChatCompletions } from '../data-plane/endpoints/chat/chat-completions.js';
import { registerCompletions } from '../data-plane/endpoints/completions/completions.js';
import { registerEmbeddings } from '../data-plane/endpoints/embeddings/embeddings.js';
import { registerImagesGenerations } from '../data-plane/endpoints/images/images-generations.js';
import { registerModerations } from '../data-plane/endpoints/moderations/moderations.js';
import { registerRerank } from '../data-plane/endpoints/rerank/rerank.js';
import { registerModels } from '../data-plane/endpoints/models/models.js';
import { registerAdminRoutes } from './admin/register-admin-routes.js';
import { clientErrorHandler, frameworkErrors, installJsonParser } from './http-edges.js';
import { redactGatewayKeyPrefix } from '../foundation/lib/redact-secrets.js';

import { installRouteGuard } from '../control-plane/resource/route-guard.js';
import { documentRoute } from './openapi/document-route.js';
import { registerConsole } from './console/serve-console.js';
import { startRequestSpan } from './request-span.js';
import { lazyRouteSchemas } from './lazy-route-schemas.js';
import { isPortkeyHeader, resolvePortkeyHeader } from './middleware/portkey-aliases/portkey-aliases.js';

/** Served without a credential: probes, the OpenAPI document, and console login (its body carries the key). */
const PUBLIC = ['/health', '/metrics', '/openapi.json', '/v1/auth/login'];

/**
 * Builds the Fastify app: request ids and trace ids, `x-forwarded-*` stripping, gateway-key
 * authentication on `/v1`, the decisions.md error shape for every failure (Fastify's own included),
 * the data-plane and admin routes, and the OpenAPI document at `/openapi.json`.
 */
export async function buildApp(deps: GatewayDeps): Promise<FastifyInstance> {
  redactGatewayKeyPrefix(deps.settings.apiKeyPrefix);
  // Bodies are validated strictly (a string is not a number); query strings and params are coerced.
  const strict = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
  const lenient = new Ajv({ coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
  addFormats.default(strict);
  addFormats.default(lenient);
  // Each route's validators and serializers are compiled on its first request (lazy-route-schemas.ts).
  const schemas = lazyRouteSchemas((httpPart) => (httpPart === 'body' ? strict : lenient));
  const app = Fastify({
    logger: false,
    schemaController: schemas.schemaController,
    bodyLimit: deps.settings.bodyLimitBytes,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    genReqId: uuid,
    frameworkErrors,
    clientErrorHandler,
  });
  app.setValidatorCompiler(schemas.validatorCompiler);
  schemas.adopt(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'AI gateway', version: '0.1.0', description: 'OpenAI-compatible AI gateway: data plane and control plane.' },
      components: {
        securitySchemes: {
          gatewayKey: { type: 'apiKey', in: 'header', name: 'x-gateway-api-key' },
          // A console session (POST /v1/auth/login); its writes also carry x-gateway-csrf.
          gatewaySession: { type: 'apiKey', in: 'cookie', name: 'gw_session' },
        },
      },
      security: [{ gatewayKey: [] }, { gatewaySession: [] }],
    },
    transform: documentRoute,
  });
  // The API speaks JSON (multipart where a route adds it): other bodies get 415.
  app.removeContentTypeParser('text/plain');
  installJsonParser(app);
  const publicPrefixes = [...PUBLIC, ...deps.publicPaths];
  const isPublic = (url: string) => !url.startsWith('/v1/') || publicPrefixes.some((p) => url.startsWith(p));

  app.decorateRequest('gw', null as never);
  // Callback-style hooks (no promise per request); a throw is handled by Fastify like a rejection.
  app.addHook('onRequest', (request, reply, done) => {
    // Probes still answer while closing: live stays 200, ready says draining.
    if (deps.lifecycle.closing && !request.url.startsWith('/health')) {
      reply.header('connection', 'close');
      throw new GatewayError('service_unavailable');
    }
    const headers = request.headers;
    for (const name in headers) {
      if (name.startsWith('x-forwarded-')) delete headers[name];
      else if (isPortkeyHeader(name)) resolvePortkeyHeader(headers, name);
    }
    const incomingTrace = request.headers['x-gateway-trace-id'];
    const span = deps.tracing && request.url.startsWith('/v1/') ? startRequestSpan(deps.tracing, request, reply) : undefined;
    const own = typeof incomingTrace === 'string' && incomingTrace.length > 0 && incomingTrace.length <= 128 ? incomingTrace : undefined;
    // Traced: a request that joined a trace (`traceparent`), or named none of its own, is known by the OpenTelemetry trace id.
    // Untraced and unnamed: its trace is this request alone, named by the request's id (a second random id per request bought nothing).
    const traceId = span && (request.headers.traceparent !== undefined || own === undefined) ? span.traceId : (own ?? request.id);
    // No tenant yet: only authentication sets the organisation and workspace, from the key.
    request.gw = new HttpRequestContext(request.id, traceId, Date.now());
    if (span) request.gw.span = span;
    reply.header('x-gateway-request-id', request.id);
    reply.header('x-gateway-trace-id', traceId);
    done();
  });
  const optionalAuth = deps.optionalAuthPaths ?? [];
  const mayAuthenticate = (url: string) => optionalAuth.some((p) => url.startsWith(p));
  app.addHook(
    'onRequest',
    createAuthHook(deps.runtime, isPublic, () => deps.clock.now(), deps.keyUsage, mayAuthenticate),
  );

  app.setErrorHandler(errorHandler(deps.logger, undefined, (request, error) => recordRefusal(deps, request, error)));
  app.setNotFoundHandler((request, reply) => {
    const g = new GatewayError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`);
    reply.code(404).send(g.toBody());
  });

  // Every /v1 route registered from here on declares its permission (or is public), checked in one place.
  installRouteGuard(app);
  // Every route registered from here on refuses U+0000 (its body too, unless it is forwarded to a provider); first among its checks.
  installNulRefusal(app);
  registerHealth(app, deps);
  registerChatCompletions(app, deps);
  registerCompletions(app, deps);
  registerEmbeddings(app, deps);
  registerImagesGenerations(app, deps);
  registerModerations(app, deps);
  registerRerank(app, deps);
  registerModels(app, deps);
  registerAdminRoutes(app, deps);
  registerConsole(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
