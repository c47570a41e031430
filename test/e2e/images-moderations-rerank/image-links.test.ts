import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../../src/foundation/lib/clock.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { UrlSigner, loadSigningKey } from '../../../src/data-plane/endpoints/images/url-signer.js';
import { REDIS_URL, startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeGoogle, type FakeGoogle } from '../../fakes/google/server.js';
import { readFakeImage } from '../../fakes/shared/fake-media.js';

let fake: FakeGoogle;
beforeAll(async () => {
  fake = await startFakeGoogle({ apiKey: 'g-key' });
});
afterAll(async () => {
  await fake?.close();
});

const headers = () => ({ 'x-gateway-config': JSON.stringify({ provider: 'google', api_key: 'g-key', custom_host: fake.url }) });

async function linkFrom(gw: TestGateway, prompt: string): Promise<string> {
  const res = await gw.openai(headers()).images.generate({ model: 'imagen-3.0-generate-002', prompt });
  return res.data![0]!.url!;
}

describe('signed image links', () => {
  it('are served for 60 minutes, then answer 403', async () => {
    const clock = new FakeClock(Date.now());
    const gw = await startGateway({ clock });
    try {
      const url = await linkFrom(gw, 'a short-lived image');
      clock.advance(59 * 60 * 1000);
      const ok = await fetch(url);
      expect(ok.status).toBe(200);
      expect(Number(ok.headers.get('cache-control')!.match(/max-age=(\d+)/)![1])).toBeLessThanOrEqual(60);
      clock.advance(61 * 1000);
      const late = await fetch(url);
      expect(late.status).toBe(403);
      expect(((await late.json()) as any).error).toMatchObject({
        code: 'forbidden',
        type: 'permission_error',
        message: 'The image link has expired.',
      });
    } finally {
      await gw.close();
    }
  });

  it('need no gateway key, but other /v1 paths still do; unknown ids with a valid signature are 404', async () => {
    const gw = await startGateway({ env: { GATEWAY_URL_SIGNING_KEY: 'known-key' } });
    try {
      const url = new URL(await linkFrom(gw, 'keyless'));
      expect(url.searchParams.get('sig')).toBe(
        new UrlSigner(Buffer.from('known-key')).sign(url.pathname.split('/').pop()!, Number(url.searchParams.get('expires'))),
      );
      const expires = Number(url.searchParams.get('expires'));
      const sig = new UrlSigner(Buffer.from('known-key')).sign('img_doesnotexist', expires);
      expect((await fetch(`${gw.url}/v1/images/files/img_doesnotexist?expires=${expires}&sig=${sig}`)).status).toBe(404);
      expect((await fetch(`${gw.url}/v1/images/files/img_x`)).status).toBe(400);
      expect((await fetch(`${gw.url}/v1/models`)).status).toBe(401);
    } finally {
      await gw.close();
    }
  });

  it('keep a generated signing key in the data dir (mode 0600) across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-img-key-'));
    try {
      const a = await loadSigningKey({ dataDir: dir, redis: null, redisKey: 'unused' });
      const file = join(dir, 'url-signing-key');
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8').trim()).toHaveLength(64);
      const b = await loadSigningKey({ dataDir: dir, redis: null, redisKey: 'unused' });
      expect(b.equals(a)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with Redis, a link made by one replica is served by another (shared store and signing key)', async () => {
    const env = { REDIS_URL, REDIS_PREFIX: `gwtest:${randomId(8)}:` };
    const a = await startGateway({ env });
    const b = await startGateway({ env });
    try {
      const url = new URL(await linkFrom(a, 'shared across replicas'));
      const onB = `${b.url}${url.pathname}${url.search}`;
      const res = await fetch(onB);
      expect(res.status).toBe(200);
      expect(readFakeImage(Buffer.from(await res.arrayBuffer()))).toEqual({ prompt: 'shared across replicas', index: 0 });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
