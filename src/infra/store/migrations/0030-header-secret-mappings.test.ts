import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { ensureDefaultTenant } from '../repos/organisations.js';
import { getAgentServer, insertAgentServer, listAllAgentServers, type AgentServer } from '../repos/agent-servers.js';
import { getMcpIntegration, insertMcpIntegration, type McpIntegration } from '../repos/mcp.js';
import { down, up } from './0030-header-secret-mappings.js';

let handle: StoreHandle | undefined;
afterEach(async () => {
  await handle?.dispose();
  handle = undefined;
});

describe.each(STORE_KINDS)('0030-header-secret-mappings ($name)', (kind) => {
  it('stores header mappings of agent servers and MCP integrations; rows written before it read as none; goes down and up again', async () => {
    handle = await kind.open();
    const db = handle.store.db;
    const t = await ensureDefaultTenant(handle.store, 1);
    const scope = { organisationId: t.organisation.id, workspaceIds: [t.workspace.id], organisationWide: true };
    const mappings = [{ target_field: 'headers.Authorization', secret_reference_id: 'ref-1', value_format: 'Bearer {{secret}}' }];
    const agent: AgentServer = {
      id: 'a-1',
      organisation_id: t.organisation.id,
      workspace_id: t.workspace.id,
      name: 'a',
      slug: 'a',
      url: 'http://127.0.0.1/a',
      headers_sealed: '',
      header_hints: {},
      skills_allow: null,
      secret_mappings: mappings,
      created_at: 1,
      updated_at: 1,
    };
    const mcp: McpIntegration = {
      id: 'i-1',
      organisation_id: t.organisation.id,
      workspace_id: null,
      name: 'i',
      slug: 'i',
      url: 'http://127.0.0.1/mcp',
      transport: 'http',
      auth_type: 'headers',
      headers_ciphertext: '',
      header_hints: {},
      oauth: {},
      oauth_secret_ciphertext: '',
      secret_mappings: mappings,
      created_at: 1,
      updated_at: 1,
    };
    await insertAgentServer(db, scope, agent);
    await insertMcpIntegration(db, scope, mcp);
    expect((await getAgentServer(db, scope, 'a-1'))?.secret_mappings).toEqual(mappings);
    expect((await getMcpIntegration(db, scope, 'i-1'))?.secret_mappings).toEqual(mappings);

    await down(db as unknown as Kysely<unknown>);
    const [before] = await listAllAgentServers(handle.store);
    expect(before?.secret_mappings).toEqual([]);
    await up(db as unknown as Kysely<unknown>);
    // Rows that existed before the migration have no mappings.
    expect((await getAgentServer(db, scope, 'a-1'))?.secret_mappings).toEqual([]);
    expect((await getMcpIntegration(db, scope, 'i-1'))?.secret_mappings).toEqual([]);
  });
});
