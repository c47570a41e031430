import { expect } from 'vitest';
import type { TestGateway } from '../../helpers/gateway.js';
import { callAs } from '../tenancy/tenant-helpers.js';

/** A member of the default workspace with a `workspace-user` key that may call MCP servers and read them (created through the admin API). */
export async function mcpUser(gw: TestGateway, email: string): Promise<{ id: string; key: string }> {
  const u = await callAs(gw, gw.adminKey, 'POST', '/v1/users', { email, workspaces: [{ id: 'default', role: 'member' }] });
  expect(u.status, JSON.stringify(u.body)).toBe(201);
  const k = await callAs(gw, gw.adminKey, 'POST', '/v1/api-keys', {
    name: email,
    type: 'workspace-user',
    user_id: u.body.id,
    scopes: ['mcp.invoke', 'mcp_servers.read'],
  });
  expect(k.status, JSON.stringify(k.body)).toBe(201);
  return { id: u.body.id, key: k.body.key };
}
