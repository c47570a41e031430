import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOfKey } from '../../kernel/principal.js';
import type { Capability } from '../../data-plane/pipeline/capability.js';
import type { GatewayDeps } from '../../data-plane/pipeline/deps.js';
import type { McpGateway } from './mcp-gateway.js';
import { mcpSection } from './mcp-section.js';
import { MCP_OAUTH_CALLBACK_PATH } from './oauth/oauth-constants.js';
import { closeLoadedUpstreamOAuth, loadUpstreamOAuth } from './oauth/load-upstream-oauth.js';
import { Nullable } from '../../foundation/spec/nullable.js';

/** Largest JSON-RPC body a client may POST (a tool call's arguments). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Registers `POST|GET|DELETE /v1/mcp/{slug}/mcp` (scope `mcp.invoke`). The routes live in their own
 * plugin whose body parser keeps the body as text: the MCP SDK's transport parses it, so malformed
 * JSON is a JSON-RPC parse error (-32700) and a wrong content type a 415, as the transport specifies,
 * rather than the admin API's error shape.
 */
function registerRoutes(app: FastifyInstance, gateway: () => Promise<McpGateway>): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => done(null, body));
    const config = { permission: 'mcp.invoke' as const };
    const schema = { tags: ['mcp'], summary: 'MCP Streamable HTTP endpoint of an MCP server' };
    scope.post('/v1/mcp/:slug/mcp', { config, schema }, async (request, reply) => (await gateway()).post(request, reply));
    scope.get('/v1/mcp/:slug/mcp', { config, schema }, async (request, reply) => (await gateway()).get(request, reply));
    scope.delete('/v1/mcp/:slug/mcp', { config, schema }, async (request, reply) => (await gateway()).delete(request, reply));
  });
}

const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ maxLength: 2048 })),
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: Type.String({ maxLength: 2048 }) },
);
const ErrorBody = Type.Object({
  error: Type.Object({ message: Type.String(), type: Type.String(), param: Nullable(Type.String()), code: Nullable(Type.String()) }),
});
/** A user's connection as the callback and `GET /v1/mcp-servers/{id}/connections` show it (never a token). */
export const ConnectionAnswer = Type.Object({
  object: Type.Literal('mcp_connection'),
  server_id: Type.String(),
  user_id: Type.String(),
  connected: Type.Boolean(),
  connected_at: Type.String(),
  expires_at: Nullable(Type.String()),
});

/**
 * `GET /v1/mcp/oauth/callback`: where the upstream's authorization server sends the user back. Public
 * (a browser redirect carries no gateway key): the single-use `state` names the user and server; a
 * credential sent anyway is authenticated and must be that user's (400 otherwise). Hand-written: a
 * browser redirect target, not a resource.
 */
function registerCallback(app: FastifyInstance, deps: GatewayDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    MCP_OAUTH_CALLBACK_PATH,
    {
      config: { public: true },
      schema: {
        querystring: CallbackQuery,
        tags: ['mcp'],
        summary: "Finish a user's OAuth connection to an MCP server's upstream (the authorization server's redirect)",
        security: [],
        response: { 200: ConnectionAnswer, '4xx': ErrorBody, '5xx': ErrorBody },
      },
    },
    async (request) => {
      const caller = request.gw.key ? principalOfKey(request.gw.key).userId : undefined;
      const { connection, serverId } = await (await loadUpstreamOAuth()).upstreamOAuth(deps).flow.finish(request, request.query, caller);
      deps.logger.info({ server_id: serverId, user_id: connection.user_id }, 'MCP OAuth connection stored');
      return {
        object: 'mcp_connection' as const,
        server_id: serverId,
        user_id: connection.user_id,
        connected: true,
        connected_at: new Date(connection.connected_at).toISOString(),
        expires_at: connection.expires_at === null ? null : new Date(connection.expires_at).toISOString(),
      };
    },
  );
}

/**
 * The MCP gateway (docs/mcp.md): the MCP servers' runtime section and the endpoint proxying clients to
 * upstream MCP servers with tool filtering, shared sessions, limits and logging.
 */
export const mcpCapability: Capability = {
  name: 'mcp',
  create() {
    // The endpoint's module (the MCP SDK's transports and schemas, zod) is loaded on the first MCP request.
    let gateway: Promise<McpGateway> | undefined;
    let deps: GatewayDeps | undefined;
    return {
      sections: [mcpSection],
      publicPaths: [MCP_OAUTH_CALLBACK_PATH],
      optionalAuthPaths: [MCP_OAUTH_CALLBACK_PATH],
      routes(app, gatewayDeps: GatewayDeps) {
        deps = gatewayDeps;
        registerRoutes(app, () => (gateway ??= import('./mcp-gateway.js').then((m) => new m.McpGateway(gatewayDeps))));
        // Before the server waits for its requests to finish: open session streams (GET) would hold it until their clients leave.
        app.addHook('preClose', async () => {
          if (gateway) (await gateway).endSessionStreams();
        });
        registerCallback(app, gatewayDeps);
      },
      async close() {
        if (gateway) await (await gateway).close();
        if (deps) await closeLoadedUpstreamOAuth(deps);
      },
    };
  },
};
