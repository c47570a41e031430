import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';
import { freePort } from '../../helpers/ports.js';
import { startRedis, stopRedis } from '../../helpers/redis-server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/**
 * `REDIS_URL` naming a port where nothing listens: `npm start` starts degraded, as docs/deployment.md
 * promises (it exited 1: the images capability's signing key and the runtime's pub/sub subscription sent
 * commands to a connection that was not up), answers, and resumes shared state once Redis comes up.
 */
describe('a gateway process whose Redis cannot be reached at startup (own process)', () => {
  let gw: GatewayProcess | undefined;
  let fake: FakeOpenAI | undefined;
  let port = 0;

  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
    if (port) stopRedis(port);
  });

  it('starts, serves /health and a chat completion, and picks Redis up when it appears', async () => {
    port = await freePort();
    fake = await startFakeOpenAI({ apiKey: 'sk-good' });
    gw = await spawnGateway({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: 'gwdown:', LOG_LEVEL: 'info' });
    expect(gw.output()).toContain('Redis not ready at startup; starting degraded');
    expect((await fetch(gw.url + '/health')).status).toBe(200);
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-good', custom_host: fake.url });
    const chat = await fetch(gw.url + '/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-api-key': gw.adminKey, 'x-gateway-config': config, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { object: string }).object).toBe('chat.completion');

    await startRedis(port);
    // The connection retries: the replica logs the recovery and the images capability adopts the shared signing key.
    await expect.poll(() => gw!.output(), { timeout: 15_000, interval: 200 }).toContain('Redis connected; shared state resumed');
    await expect
      .poll(() => execFileSync('redis-cli', ['-p', String(port), 'get', 'gwdown:img:signing-key'], { encoding: 'utf8' }).trim().length, {
        timeout: 15_000,
        interval: 200,
      })
      .toBe(64);
    // The runtime's invalidation channel is subscribed now that the connection is up.
    await expect
      .poll(() => execFileSync('redis-cli', ['-p', String(port), 'pubsub', 'channels', 'gwdown:*'], { encoding: 'utf8' }), {
        timeout: 15_000,
        interval: 200,
      })
      .toContain('gwdown:runtime-changed');
    expect(gw.child.exitCode).toBeNull();
  }, 90_000);
});
