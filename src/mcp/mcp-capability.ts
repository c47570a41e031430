import type { FastifyInstance } from 'fastify';
import type { Capability } from '../gateway/capability.js';
import type { GatewayDeps } from '../gateway/deps.js';
import { McpGateway } from './mcp-gateway.js';
import { mcpSection } from './mcp-section.js';

/** Largest JSON-RPC body a client may POST (a tool call's arguments). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Registers `POST|GET|DELETE /v1/mcp/{slug}/mcp` (scope `mcp.invoke`). The routes live in their own
 * plugin whose body parser keeps the body as text: the MCP SDK's transport parses it, so malformed
 * JSON is a JSON-RPC parse error (-32700) and a wrong content type a 415, as the transport specifies,
 * rather than the admin API's error shape.
 */
function registerRoutes(app: FastifyInstance, gateway: McpGateway): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_request, body, done) => done(null, body));
    const config = { permission: 'mcp.invoke' as const };
    const schema = { tags: ['mcp'], summary: 'MCP Streamable HTTP endpoint of an MCP server' };
    scope.post('/v1/mcp/:slug/mcp', { config, schema }, (request, reply) => gateway.post(request, reply));
    scope.get('/v1/mcp/:slug/mcp', { config, schema }, (request, reply) => gateway.get(request, reply));
    scope.delete('/v1/mcp/:slug/mcp', { config, schema }, (request, reply) => gateway.delete(request, reply));
  });
}

/**
 * The MCP gateway (docs/mcp.md): the MCP servers' runtime section and the endpoint proxying clients to
 * upstream MCP servers with tool filtering, shared sessions, limits and logging.
 */
export const mcpCapability: Capability = {
  name: 'mcp',
  create() {
    let gateway: McpGateway | undefined;
    return {
      sections: [mcpSection],
      routes(app, deps: GatewayDeps) {
        gateway = new McpGateway(deps);
        registerRoutes(app, gateway);
      },
      async close() {
        await gateway?.close();
      },
    };
  },
};
