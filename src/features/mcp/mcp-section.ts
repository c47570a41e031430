import type { RuntimeSection } from '../../runtime/runtime.js';
import { listMcpServersWithIntegrations, type McpIntegration, type McpServer } from '../../infra/store/repos/mcp.js';

/** Name of the runtime snapshot section holding the MCP servers with their integrations. */
export const MCP_SECTION = 'mcp-servers';

/** One MCP server as the endpoint reads it: the server, its upstream integration (headers still sealed). */
export interface McpRoute {
  readonly server: McpServer;
  readonly integration: McpIntegration;
}

/** The MCP servers by `<workspace id>:<slug>`. */
export interface McpSection {
  readonly bySlug: ReadonlyMap<string, McpRoute>;
}

/**
 * Loads every MCP server with its integration (reloaded whole on any MCP write: an organisation-level
 * integration changes servers of many workspaces, and the table is small).
 */
export const mcpSection: RuntimeSection<McpSection> = {
  name: MCP_SECTION,
  async load(store) {
    const bySlug = new Map<string, McpRoute>();
    for (const route of await listMcpServersWithIntegrations(store)) bySlug.set(`${route.server.workspace_id}:${route.server.slug}`, route);
    return { bySlug };
  },
};
