import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeMcp, type FakeMcp } from '../../fakes/mcp/server.js';
import { callAs } from '../tenancy/tenant-helpers.js';

/** Sets up an `sse` integration and server `legacy` on a gateway. */
async function legacyServer(gw: TestGateway, fake: FakeMcp): Promise<void> {
  const integration = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-integrations', {
    name: 'SSE upstream',
    slug: 'sse-up',
    url: `${fake.url}/sse`,
    transport: 'sse',
  });
  expect(integration.status, JSON.stringify(integration.body)).toBe(201);
  const server = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-servers', { name: 'Legacy', slug: 'legacy', mcp_integration_id: 'sse-up' });
  expect(server.status, JSON.stringify(server.body)).toBe(201);
}

/** An SDK client session through the gateway that lists tools, then is dropped without `DELETE` (as clients that crash or forget do). */
async function useAndDrop(gw: TestGateway): Promise<string> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/legacy/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
  });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(transport);
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  const id = transport.sessionId!;
  await client.close();
  return id;
}

async function listTools(gw: TestGateway, sessionId: string, id: number): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}/v1/mcp/legacy/mcp`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': gw.adminKey,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
  });
  return { status: res.status, text: await res.text() };
}

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('MCP sessions of an SSE upstream left without DELETE', () => {
  let fake: FakeMcp;
  let gw: TestGateway | undefined;
  let lasting: TestGateway | undefined;

  beforeAll(async () => {
    fake = await startFakeMcp();
    gw = await startGateway({ env: { GATEWAY_MCP_SESSION_IDLE_TTL_S: '1' } });
    await legacyServer(gw, fake);
  });
  afterAll(async () => {
    await gw?.close();
    await lasting?.close();
    await fake?.close();
  });

  it('closes the upstream connection of each idle session after GATEWAY_MCP_SESSION_IDLE_TTL_S; the session still works after', async () => {
    const ids = [await useAndDrop(gw!), await useAndDrop(gw!), await useAndDrop(gw!)];
    expect(fake.openSseStreams).toBe(3);
    // Before, each stayed open until the gateway stopped (33 after one conformance run).
    await expect.poll(() => fake.openSseStreams, { timeout: 5_000, interval: 100 }).toBe(0);
    // The session is not over: its next message opens a new upstream stream (replaying its initialize).
    const again = await listTools(gw!, ids[0]!, 7);
    expect(again.status).toBe(200);
    expect(again.text).toContain('"echo"');
    expect(fake.openSseStreams).toBe(1);
    await expect.poll(() => fake.openSseStreams, { timeout: 5_000, interval: 100 }).toBe(0);
  });

  it('keeps the upstream connection of a session in use', async () => {
    const id = await useAndDrop(gw!);
    const opened = fake.initializations;
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 400));
      expect((await listTools(gw!, id, i)).status).toBe(200);
    }
    // 2 s of use with a 1 s idle time: one stream all along.
    expect(fake.initializations).toBe(opened);
    expect(fake.openSseStreams).toBe(1);
  });

  it('closes the upstream connections at shutdown', async () => {
    await expect.poll(() => fake.openSseStreams, { timeout: 5_000, interval: 100 }).toBe(0);
    lasting = await startGateway();
    await legacyServer(lasting, fake);
    await useAndDrop(lasting);
    await useAndDrop(lasting);
    expect(fake.openSseStreams).toBe(2);
    await lasting.close();
    lasting = undefined;
    await expect.poll(() => fake.openSseStreams, { timeout: 5_000, interval: 100 }).toBe(0);
  });
});
