import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startAskingUpstream, type AskingUpstream } from '../../fakes/mcp/asking-upstream.js';
import { callAs } from '../tenancy/tenant-helpers.js';

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe("MCP: the upstream's requests to the client on the session stream", () => {
  let gw: TestGateway;
  let up: AskingUpstream;

  /** An SDK client that answers sampling and elicitation, connected through the gateway. */
  async function connect(): Promise<{ client: Client; asked: string[] }> {
    const asked: string[] = [];
    const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push('sampling');
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'hi from the client' } };
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked.push('elicitation');
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/asking/mcp`), { requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } } }));
    return { client, asked };
  }

  beforeAll(async () => {
    // Its session stream takes 300 ms to connect: a tool call right after initializing used to overtake it.
    up = await startAskingUpstream({ streamDelayMs: 300 });
    gw = await startGateway();
    const integration = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-integrations', { name: 'Asking upstream', slug: 'asking-up', url: up.url });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const server = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-servers', { name: 'Asking', slug: 'asking', mcp_integration_id: 'asking-up' });
    expect(server.status, JSON.stringify(server.body)).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });

  it('a sampling request the upstream sends the moment the session is initialized reaches the client, and its answer the upstream', async () => {
    const { client, asked } = await connect();
    // Before, it was sent before the client's stream was connected upstream and lost: the upstream waited 60 s.
    await expect.poll(() => up.sampled, { timeout: 5_000, interval: 50 }).toEqual(['hi from the client']);
    expect(asked).toEqual(['sampling']);
    await client.close();
  });

  it("an elicitation a tool sends on the session stream at once reaches the client; the call gets the client's answer", async () => {
    const { client, asked } = await connect();
    const started = Date.now();
    const result = await client.callTool({ name: 'ask', arguments: {} }, undefined, { timeout: 10_000 });
    expect(result.content).toEqual([{ type: 'text', text: 'accept:Ada' }]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(asked).toContain('elicitation');
    await client.close();
  });
});
