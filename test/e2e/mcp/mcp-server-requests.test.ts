import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startAskingUpstream, type AskingUpstream } from '../../fakes/mcp/asking-upstream.js';
import { callAs } from '../tenancy/tenant-helpers.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

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
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/v1/mcp/asking/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${gw.adminKey}` } },
      }),
    );
    return { client, asked };
  }

  beforeAll(async () => {
    // Its session stream takes 300 ms to connect: a tool call right after initializing used to overtake it.
    up = await startAskingUpstream({ streamDelayMs: 300 });
    gw = await startGateway();
    const integration = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-integrations', {
      name: 'Asking upstream',
      slug: 'asking-up',
      url: up.url,
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    const server = await callAs(gw, gw.adminKey, 'POST', '/v1/mcp-servers', {
      name: 'Asking',
      slug: 'asking',
      mcp_integration_id: 'asking-up',
    });
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

/**
 * Two replicas on one PostgreSQL schema: the client initializes on one (which opens and holds the upstream's session
 * stream) and opens its GET on the other, which the upstream refuses (409, one stream per session) until the first
 * lets go of the stream no GET took there.
 */
describe('MCP: a session stream opened on another replica than the one holding it', () => {
  let one: TestGateway;
  let two: TestGateway;
  let up: AskingUpstream;

  beforeAll(async () => {
    const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:` };
    one = await startGateway({ store: 'postgres', env });
    two = await startGateway({ store: 'postgres', pgSchema: one.pgSchema, env: { ...env, GATEWAY_ADMIN_KEY: one.adminKey } });
    up = await startAskingUpstream();
    expect(
      (await callAs(one, one.adminKey, 'POST', '/v1/mcp-integrations', { name: 'Asking upstream', slug: 'asking-up', url: up.url })).status,
    ).toBe(201);
    expect(
      (await callAs(one, one.adminKey, 'POST', '/v1/mcp-servers', { name: 'Asking', slug: 'asking', mcp_integration_id: 'asking-up' }))
        .status,
    ).toBe(201);
    await two.gateway.deps.runtime.changed();
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await up?.close();
  });

  it("the other replica's GET is connected once the first lets go (not refused 409), and relays the upstream's requests", async () => {
    const headers = {
      'x-gateway-api-key': one.adminKey,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const postTo = (gw: TestGateway, body: unknown, extra: Record<string, string> = {}) =>
      fetch(`${gw.url}/v1/mcp/asking/mcp`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const init = await postTo(one, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(init.status).toBe(200);
    await init.text();
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    expect((await postTo(one, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    expect(up.streamsOpened).toBe(1);
    // The client's stream, on the other replica: the upstream refuses it (409) while the first replica holds one.
    const streamed = fetch(`${two.url}/v1/mcp/asking/mcp`, {
      headers: { 'x-gateway-api-key': one.adminKey, accept: 'text/event-stream', ...session },
    });
    await expect.poll(() => up.streamsOpened, { timeout: 6_000, interval: 50 }).toBe(2);
    // A tool call on the first replica: the upstream's elicitation goes out on the stream the other replica relays.
    const call = postTo(one, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } }, session);
    const stream = await streamed;
    expect(stream.status).toBe(200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('elicitation/create')) text += (await reader.read()).value ?? '';
    const asked = JSON.parse(
      text
        .split('\n')
        .find((l) => l.includes('elicitation/create'))!
        .replace(/^data: /, ''),
    ) as { id: number };
    expect(
      (await postTo(one, { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } }, session)).status,
    ).toBe(202);
    expect(await (await call).text()).toContain('accept:Ada');
    await reader.cancel();
  }, 20_000);
});
