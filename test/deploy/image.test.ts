import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../src/infra/store/store.js';
import { PG_URL, REDIS_URL, TEST_ENCRYPTION_KEY } from '../helpers/gateway.js';
import { freePort } from '../helpers/ports.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai/server.js';
import { BASE_TAG, ULIMITS, assertContainersWork, headCommit, must, run, stageContext } from './podman.js';

/**
 * The container image (operations.md §5), built with podman from the root Dockerfile on a local base
 * (Debian 12 + Node 20 from npm, test/deploy/build-test-base.sh), then run read-only on SQLite and on
 * PostgreSQL + Redis with a chat request through it to a fake upstream.
 */
const IMAGE = `localhost/ai-gateway:test-${randomId(8).toLowerCase()}`;
const MB = 1024 * 1024;
const commit = headCommit();
let fake: FakeOpenAI;
const cleanup: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  await assertContainersWork();
  const context = stageContext();
  cleanup.push(async () => context.dispose());
  await must(
    'podman',
    [
      '--runtime',
      'runc',
      'build',
      '--format',
      'docker',
      '--network',
      'host',
      ...ULIMITS,
      '--build-arg',
      `NODE_IMAGE=${BASE_TAG}`,
      '--build-arg',
      `GIT_COMMIT=${commit}`,
      '-t',
      IMAGE,
      context.dir,
    ],
    20 * 60_000,
  );
  cleanup.push(() => run('podman', ['rmi', '-f', IMAGE]));
  fake = await startFakeOpenAI();
}, 25 * 60_000);
afterAll(async () => {
  await fake?.close();
  for (const c of cleanup.reverse()) await c();
}, 120_000);

async function waitReady(url: string, container: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(url + '/health/ready')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`container did not become ready:\n${(await run('podman', ['logs', container])).out.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function chat(url: string, adminKey: string): Promise<void> {
  const res = await fetch(url + '/v1/chat/completions', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': adminKey,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': fake.url,
      authorization: 'Bearer k',
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'through the container' }] }),
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(
    'echo: through the container',
  );
}

/** Starts the image detached (host network, read-only root, tmpfs /tmp, a volume on /data); returns its name and URL. */
async function start(volume: string, env: Record<string, string>, adminKey: string): Promise<{ name: string; url: string }> {
  const port = await freePort();
  const name = `gw-${randomId(10).toLowerCase()}`;
  const envArgs = Object.entries({ ...env, PORT: String(port), HOST: '127.0.0.1', GATEWAY_ADMIN_KEY: adminKey }).flatMap(([k, v]) => [
    '-e',
    `${k}=${v}`,
  ]);
  await must('podman', [
    '--runtime',
    'runc',
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    ...ULIMITS,
    '--read-only',
    '--tmpfs',
    '/tmp',
    '-v',
    `${volume}:/data`,
    ...envArgs,
    IMAGE,
  ]);
  cleanup.push(() => run('podman', ['rm', '-f', name]));
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, name);
  return { name, url };
}

/** `podman stop` (SIGTERM): the gateway drains and exits 0. */
async function stop(name: string): Promise<void> {
  await must('podman', ['stop', '-t', '30', name], 60_000);
  expect((await must('podman', ['inspect', '--format', '{{.State.ExitCode}}', name])).trim()).toBe('0');
  expect((await run('podman', ['logs', name])).out).toContain('"msg":"draining"');
}

describe('the container image (operations.md §5)', () => {
  it('adds at most 250 MB to its base, runs as 10001 with production dependencies only', async () => {
    const size = async (image: string) => Number((await must('podman', ['image', 'inspect', '--format', '{{.Size}}', image])).trim());
    const added = (await size(IMAGE)) - (await size(BASE_TAG));
    expect(added / MB).toBeLessThanOrEqual(250);
    const inside = await must('podman', [
      '--runtime',
      'runc',
      'run',
      '--rm',
      ...ULIMITS,
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'id -u; id -g; ls /app/node_modules; node dist/cli.js --version',
    ]);
    const [uid, gid, ...rest] = inside.trim().split('\n');
    expect([uid, gid]).toEqual(['10001', '10001']);
    for (const dev of ['typescript', 'vitest', 'tsx', 'playwright-core']) expect(rest).not.toContain(dev);
    expect(rest).toContain('better-sqlite3');
    expect(rest[rest.length - 1]).toMatch(new RegExp(`^ai-gateway \\S+ \\(${commit}\\)$`));
  }, 120_000);

  it('on SQLite: serves a chat request, passes its HEALTHCHECK, drains on stop (exit 0), keeps its data on the volume', async () => {
    const volume = `gw-data-${randomId(8).toLowerCase()}`;
    await must('podman', ['volume', 'create', volume]);
    cleanup.push(() => run('podman', ['volume', 'rm', '-f', volume]));
    const adminKey = 'img-admin-' + randomId(20);
    const first = await start(volume, {}, adminKey);
    expect(await (await fetch(first.url + '/health')).json()).toMatchObject({ status: 'ok', commit });
    await chat(first.url, adminKey);
    expect((await run('podman', ['healthcheck', 'run', first.name])).code).toBe(0);
    await stop(first.name);
    // The same volume in a new container: the request-log row written before the stop is there.
    const second = await start(volume, {}, adminKey);
    const logs = (await (await fetch(second.url + '/v1/logs', { headers: { 'x-gateway-api-key': adminKey } })).json()) as {
      data: unknown[];
    };
    expect(logs.data.length).toBeGreaterThanOrEqual(1);
    await stop(second.name);
  }, 300_000);

  it('on PostgreSQL + Redis: serves a chat request and drains on stop (exit 0)', async () => {
    const schema = `t_${randomId(12).toLowerCase()}`;
    cleanup.push(() => dropPostgresSchema(PG_URL, schema));
    const volume = `gw-data-${randomId(8).toLowerCase()}`;
    await must('podman', ['volume', 'create', volume]);
    cleanup.push(() => run('podman', ['volume', 'rm', '-f', volume]));
    const adminKey = 'img-admin-' + randomId(20);
    const gw = await start(
      volume,
      {
        DATABASE_URL: PG_URL,
        DATABASE_SCHEMA: schema,
        REDIS_URL: REDIS_URL,
        REDIS_PREFIX: `img-${schema}:`,
        GATEWAY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      },
      adminKey,
    );
    await chat(gw.url, adminKey);
    expect((await run('podman', ['healthcheck', 'run', gw.name])).code).toBe(0);
    await stop(gw.name);
  }, 300_000);
});
