import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnGateway, ensureBuilt, type GatewayProcess } from '../../helpers/processes.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

const DIST = resolve(import.meta.dirname, '../../../dist');

/** The built gateway on its embedded SQLite file: the request log is written by a thread of its own (src/infra/store/request-log-worker.ts). */
describe('the request log of the built gateway on SQLite', () => {
  let fake: FakeOpenAI;
  let gw: GatewayProcess | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    ensureBuilt();
    fake = await startFakeOpenAI();
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is written by a thread when the store is a file (not in memory, not from the sources)', async () => {
    const { RequestLogThread } = (await import(
      pathToFileURL(join(DIST, 'infra/store/request-log-worker.js')).href
    )) as typeof import('../../../src/infra/store/request-log-worker.js');
    expect(RequestLogThread.forFile('/tmp/gateway.db')).toBeInstanceOf(RequestLogThread);
    expect(RequestLogThread.forFile(':memory:')).toBeUndefined();
  });

  it('lists what was served, and keeps at shutdown the rows still in memory', async () => {
    // A long flush interval: the rows of the last requests are still in memory when SIGTERM comes.
    dataDir = mkdtempSync(join(tmpdir(), 'gw-log-thread-'));
    const adminKey = 'log-thread-admin-' + 'x'.repeat(24);
    gw = await spawnGateway({ GATEWAY_REQUEST_LOG_FLUSH_MS: '60000', GATEWAY_ADMIN_KEY: adminKey }, { dataDir });
    const chat = (i: number) =>
      fetch(gw!.url + '/v1/chat/completions', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gateway-api-key': gw!.adminKey,
          'x-gateway-provider': 'openai',
          'x-gateway-custom-host': fake.url,
          authorization: 'Bearer k',
        },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `hello ${i}` }] }),
      });
    const logs = async (g: GatewayProcess) => {
      const r = await fetch(g.url + '/v1/logs?page_size=1', { headers: { 'x-gateway-api-key': g.adminKey } });
      expect(r.status).toBe(200);
      return ((await r.json()) as { total: number }).total;
    };
    for (let i = 0; i < 30; i++) expect((await chat(i)).status).toBe(200);
    // Reading the log flushes what is in memory first.
    expect(await logs(gw)).toBe(30);
    for (let i = 30; i < 42; i++) expect((await chat(i)).status).toBe(200);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(gw.output()).not.toMatch(/request log rows (dropped|not written)|store unreachable/);
    gw = await spawnGateway({ GATEWAY_ADMIN_KEY: adminKey }, { dataDir });
    expect(await logs(gw)).toBe(42);
  }, 90_000);
});
