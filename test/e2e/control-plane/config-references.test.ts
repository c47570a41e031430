import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { callAs, type JsonAnswer } from '../tenancy/tenant-helpers.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * A config naming a virtual key or provider slug its workspace cannot use is refused when it is saved
 * (400 `invalid_config` naming the target's path), and `POST /v1/configs/explain` says the same, instead
 * of a 404 at request time.
 */
describe('configs naming a virtual key of another workspace', () => {
  let gw: TestGateway;
  let other: string;
  const slug = `vk-${randomId(6).toLowerCase()}`;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);

  function expectRefused(r: JsonAnswer, param: string): void {
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_config', param });
    expect(r.body.error.message).toContain(slug);
  }

  beforeAll(async () => {
    gw = await startGateway();
    other = (await admin('POST', '/v1/workspaces', { name: `other ${randomId(4)}` })).body.id;
    const vk = await admin('POST', '/v1/virtual-keys', {
      name: 'other vk',
      slug,
      provider: 'openai',
      key: 'sk-other',
      workspace_id: other,
    });
    expect(vk.status, JSON.stringify(vk.body)).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('refuses it at create, update and explain in the default workspace, naming the path', async () => {
    const viaVk = { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'sk-x' }, { virtual_key: slug }] };
    expectRefused(await admin('POST', '/v1/configs', { name: 'a', config: viaVk }), 'config.targets[1].virtual_key');
    expectRefused(await admin('POST', '/v1/configs', { name: 'b', config: { provider: `@${slug}` } }), 'config.provider');
    expectRefused(await admin('POST', '/v1/configs/explain', { config: viaVk }), 'config.targets[1].virtual_key');

    const plain = await admin('POST', '/v1/configs', { name: 'plain', config: { provider: 'openai', api_key: 'sk-x' } });
    expect(plain.status).toBe(201);
    expectRefused(await admin('PUT', `/v1/configs/${plain.body.id}`, { config: { virtual_key: slug } }), 'config.virtual_key');
  });

  it('accepts it in the workspace that has the virtual key, and explain of the stored config answers', async () => {
    const made = await admin('POST', '/v1/configs', { name: 'own', config: { virtual_key: slug }, workspace_id: other });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const explained = await admin('POST', '/v1/configs/explain', { config_id: made.body.id });
    expect(explained.status, JSON.stringify(explained.body)).toBe(200);
    expect(explained.body.object).toBe('config_explanation');
  });
});
