import type { Capability } from '../../data-plane/pipeline/capability.js';
import { agentServersSection } from './agent-servers-section.js';
import { registerAgentRoutes } from './agent-proxy-route.js';
import { MemoryTaskOwners, RedisTaskOwners, type TaskOwners } from './task-owners.js';

/**
 * The agent gateway (issue 23, docs/agents.md): the agent-servers section (written by
 * `control-plane/resources/agent-servers`) and `POST /v1/agents/{slug}`, the A2A JSON-RPC proxy. Task
 * owners live in Redis (`<state.prefix>a2a:`) when REDIS_URL is set, shared by every replica, else in
 * this process.
 */
export const agentsCapability: Capability = {
  name: 'agents',
  create(core) {
    const owners: TaskOwners = core.state.redis
      ? new RedisTaskOwners(core.state.redis, `${core.state.prefix}a2a:`)
      : new MemoryTaskOwners();
    return {
      sections: [agentServersSection],
      routes: (app, deps) => registerAgentRoutes(app, deps, owners),
    };
  },
};
