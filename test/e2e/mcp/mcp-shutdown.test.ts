import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeMcp, type FakeMcp } from '../../fakes/mcp/server.js';
import { callAs } from '../tenancy/tenant-helpers.js';

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('MCP gateway at shutdown', () => {
  let gw: TestGateway | undefined;
  let fake: FakeMcp;

  beforeAll(async () => {
    fake = await startFakeMcp();
    gw = await startGateway();
    const integration = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-integrations', {
      name: 'Fake upstream',
      slug: 'fake-up',
      url: `${fake.url}/mcp`,
      auth_type: 'none',
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const server = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-servers', {
      name: 'Files',
      slug: 'files',
      mcp_integration_id: 'fake-up',
    });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it("ends the open session streams (GET) instead of waiting for their clients, and the client's stream closes", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw!.url}/v1/mcp/files/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${gw!.adminKey}` } },
    });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(transport);
    // The SDK client opens its session stream after initializing; the upstream then holds one open too.
    const upstreamStreams = () => fake.headers.filter((h) => h.accept === 'text/event-stream' && h['content-type'] === undefined).length;
    await expect.poll(upstreamStreams, { timeout: 10_000 }).toBeGreaterThan(0);
    let clientSawClose = false;
    transport.onerror = () => {
      clientSawClose = true;
    };
    const started = Date.now();
    const closing = gw!.close();
    gw = undefined;
    await closing;
    // Without ending the stream, the server waited until the client left (over a minute with the SDK client).
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect.poll(() => clientSawClose, { timeout: 5_000 }).toBe(true);
    await client.close().catch(() => undefined);
  }, 60_000);
});
