import type { RuntimeSection } from '../../runtime/runtime.js';
import { listAllAgentServers, type AgentServer } from '../../infra/store/repos/agent-servers.js';

/** Name of the runtime snapshot section holding the agent servers. */
export const AGENT_SERVERS_SECTION = 'agent-servers';

/** Agent servers by `<workspace id>:<slug>` (how `/v1/agents/{slug}` finds its upstream). */
export interface AgentServersSection {
  bySlug: ReadonlyMap<string, AgentServer>;
}

/** The key of an agent server in the section. */
export function agentKey(workspaceId: string, slug: string): string {
  return `${workspaceId}:${slug}`;
}

function index(into: Map<string, AgentServer>, servers: readonly AgentServer[]): Map<string, AgentServer> {
  for (const s of servers) into.set(agentKey(s.workspace_id, s.slug), s);
  return into;
}

/** Loads every agent server, or (after a write naming its workspace) those of the workspaces changed. */
export const agentServersSection: RuntimeSection<AgentServersSection> = {
  name: AGENT_SERVERS_SECTION,
  async load(store) {
    return { bySlug: index(new Map(), await listAllAgentServers(store)) };
  },
  async loadWorkspaces(store, previous, workspaceIds) {
    const next = new Map(previous.bySlug);
    const changed = new Set(workspaceIds);
    for (const [key, s] of next) if (changed.has(s.workspace_id)) next.delete(key);
    return { bySlug: index(next, await listAllAgentServers(store, workspaceIds)) };
  },
};
