import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { PG_URL, REDIS_URL } from '../../helpers/gateway.js';
import { startFakeMcp, type FakeMcp } from '../../fakes/mcp/server.js';
import { dropPostgresSchema, openStore } from '../../../src/infra/store/store.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * Two gateway processes sharing PostgreSQL and Redis behind alternating requests: one SDK client
 * session is served by both (the session lives in the store, not in a process).
 */
let one: GatewayProcess;
let two: GatewayProcess;
let fake: FakeMcp;
const schema = `t_${randomId(12).toLowerCase()}`;
const adminKey = 'mcp-replica-' + randomId(16);

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(one.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': adminKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A fetch sending each request to the next replica in turn; `served` counts requests per replica. */
function alternating(): { fetch: FetchLike; served: number[] } {
  const served = [0, 0];
  let n = 0;
  return {
    served,
    fetch: (url, init) => {
      const i = n++ % 2;
      served[i]!++;
      const u = new URL(url);
      return fetch([one, two][i]!.url + u.pathname + u.search, init);
    },
  };
}

/** Waits until replica `gw` serves MCP server `slug` (its runtime snapshot caught up). */
async function servedBy(gw: GatewayProcess, slug: string): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const res = await fetch(`${gw.url}/v1/mcp/${slug}/mcp`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': adminKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await res.text();
    if (res.status !== 404) return;
    if (Date.now() - t0 > 5000) throw new Error(`replica never served ${slug}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  fake = await startFakeMcp();
  await (await openStore({ kind: 'postgres', url: PG_URL, schema })).close();
  const env = {
    DATABASE_URL: PG_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL,
    REDIS_PREFIX: `gwtest:${randomId(8)}:`,
    GATEWAY_ADMIN_KEY: adminKey,
  };
  one = await spawnGateway(env);
  two = await spawnGateway(env);
  for (const [slug, path, transport] of [
    ['http', '/mcp', 'http'],
    ['sse', '/sse', 'sse'],
  ] as const) {
    expect((await admin('POST', '/v1/mcp-integrations', { name: slug, slug: `${slug}-up`, url: fake.url + path, transport })).status).toBe(
      201,
    );
    expect(
      (await admin('POST', '/v1/mcp-servers', { name: slug, slug, mcp_integration_id: `${slug}-up`, tools: { deny: ['secret'] } })).status,
    ).toBe(201);
    await servedBy(two, slug);
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await fake?.close();
  await dropPostgresSchema(PG_URL, schema);
});

describe('MCP sessions across two gateway processes', () => {
  for (const slug of ['http', 'sse']) {
    it(`one SDK client session is served by both replicas in turn (${slug} upstream)`, async () => {
      const route = alternating();
      const transport = new StreamableHTTPClientTransport(new URL(`http://gateway.invalid/v1/mcp/${slug}/mcp`), {
        fetch: route.fetch,
        requestInit: { headers: { authorization: `Bearer ${adminKey}` } },
      });
      const client = new Client({ name: 'replica-client', version: '1.0.0' });
      const initsBefore = fake.initializations;
      const callsBefore = fake.calls.length;
      await client.connect(transport);
      for (let i = 0; i < 4; i++) {
        expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', 'progress']);
        expect((await client.callTool({ name: 'echo', arguments: { i } })).content).toEqual([
          { type: 'text', text: JSON.stringify({ i }) },
        ]);
        const refused = await client.callTool({ name: 'secret' }).catch((e: unknown) => e);
        expect((refused as { code: number }).code).toBe(-32602);
      }
      expect(route.served[0]).toBeGreaterThanOrEqual(6);
      expect(route.served[1]).toBeGreaterThanOrEqual(6);
      expect(fake.calls.slice(callsBefore).map((c) => c.tool)).toEqual(['echo', 'echo', 'echo', 'echo']);
      // Streamable HTTP: one upstream session for the client's one session. SSE: the upstream stream
      // lives in a process, so the second replica reopened it once by replaying initialize.
      expect(fake.initializations - initsBefore).toBe(slug === 'http' ? 1 : 2);
      await transport.terminateSession();
      await client.close();
    });
  }
});
