import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { CAPABILITIES } from '../../../src/server/capabilities.js';
import { batchesCapability } from '../../../src/data-plane/endpoints/batches/batches-capability.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { SecretBox, isSealed } from '../../../src/foundation/lib/secret-box.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { openRouteHeaders, sealRouteHeaders } from '../../../src/foundation/lib/route-headers.js';
import { sealStoredSecrets } from '../../../src/infra/store/seal-stored-secrets.js';
import { chatLines, uploadInput, waitFor } from './batch-helpers.js';

/** The provider key the fake accepts: a shape no pattern redaction knows, so only sealing keeps it out. */
const providerKey = `batchkey-${randomId(24)}`;

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('routing headers of gateway-managed batches', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;
  const lines: string[] = [];

  const batchRow = async (id: string) =>
    (await gw.gateway.deps.store.db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst())!;
  const keysSent = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.headers.authorization);
  const expectNone = (where: string, text: string) => expect(text.includes(providerKey), `${where} carries the provider key`).toBe(false);

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: providerKey });
    const capabilities = CAPABILITIES.map((c) => (c.name === 'batches' ? batchesCapability({ concurrency: 4, pollMs: 20 }) : c));
    const destination = new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString('utf8')), done()) });
    gw = await startGateway({ capabilities, logger: createLogger('debug', { destination }) });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it.each([
    [
      'an inline x-gateway-config with its api_key',
      () => ({
        headers: { 'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: providerKey, custom_host: fake.url }) },
        apiKey: 'sk-unused-placeholder',
      }),
    ],
    [
      'the provider key in Authorization',
      () => ({ headers: { 'x-gateway-config': JSON.stringify({ provider: 'openai', custom_host: fake.url }) }, apiKey: providerKey }),
    ],
  ])('stores %s sealed, and the worker runs the lines with the real key', async (_name, how) => {
    fake.reset();
    const { headers, apiKey } = how();
    const client = gw.openai(headers, { apiKey });
    const input = await uploadInput(gw.openai(), chatLines(3));
    const created = await client.batches.create({
      input_file_id: input,
      endpoint: '/v1/chat/completions',
      completion_window: 'immediate' as '24h',
    });
    expectNone('the create answer', JSON.stringify(created));
    const row = await batchRow(created.id);
    expectNone('the stored row', JSON.stringify(row));
    const route = JSON.parse(row.route) as { headers: Record<string, { sealed: string; hint: string }> };
    for (const name of ['x-gateway-config', 'authorization']) expect(isSealed(route.headers[name]!.sealed), name).toBe(true);
    expect(openRouteHeaders(gw.gateway.deps.secrets, created.id, route.headers)).toMatchObject(headers);

    const done = await waitFor(client, created.id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    expect(keysSent()).toEqual([`Bearer ${providerKey}`, `Bearer ${providerKey}`, `Bearer ${providerKey}`]);
    expectNone('the retrieve answer', JSON.stringify(await client.batches.retrieve(created.id)));
    expectNone('the list answer', JSON.stringify((await client.batches.list()).data));
    expectNone('the stored row after the run', JSON.stringify(await batchRow(created.id)));
  });

  it('seals a batch an older gateway stored with plaintext headers, at start, and still runs it', async () => {
    fake.reset();
    const client = gw.openai();
    const input = await uploadInput(client, chatLines(2));
    const db = gw.gateway.deps.store.db;
    const template = (await db.selectFrom('batches').selectAll().where('mode', '=', 'gateway').executeTakeFirst())!;
    const id = `batch_gw${randomId(22)}`;
    const now = Date.now();
    const batch = {
      ...JSON.parse(template.batch),
      id,
      input_file_id: input,
      status: 'validating',
      in_progress_at: null,
      finalizing_at: null,
      completed_at: null,
      output_file_id: null,
      error_file_id: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
    };
    const headers = {
      'x-gateway-config': JSON.stringify({ provider: 'openai', custom_host: fake.url }),
      authorization: `Bearer ${providerKey}`,
    };
    const route = { ...JSON.parse(template.route), headers };
    // As a gateway without sealing wrote it: the captured headers in plaintext.
    await db
      .insertInto('batches')
      .values({
        ...template,
        id,
        status: 'validating',
        batch: JSON.stringify(batch),
        route: JSON.stringify(route),
        lease_owner: null,
        lease_until: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(1);
    const sealed = await batchRow(id);
    expectNone('the sealed legacy row', sealed.route);
    expect(openRouteHeaders(gw.gateway.deps.secrets, id, JSON.parse(sealed.route).headers)).toEqual(headers);
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(0);
    const done = await waitFor(client, id, ['completed', 'failed']);
    expect(done.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    expect(keysSent()).toEqual([`Bearer ${providerKey}`, `Bearer ${providerKey}`]);
  });

  it('fails, saying why, a batch whose headers were sealed with another encryption key', async () => {
    const client = gw.openai();
    const db = gw.gateway.deps.store.db;
    const template = (await db.selectFrom('batches').selectAll().where('mode', '=', 'gateway').executeTakeFirst())!;
    const id = `batch_gw${randomId(22)}`;
    const now = Date.now();
    const batch = {
      ...JSON.parse(template.batch),
      id,
      status: 'validating',
      in_progress_at: null,
      finalizing_at: null,
      completed_at: null,
      output_file_id: null,
      error_file_id: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
    };
    const headers = sealRouteHeaders(new SecretBox(Buffer.alloc(32, 13)), id, { authorization: `Bearer ${providerKey}` });
    const route = { ...JSON.parse(template.route), headers };
    await db
      .insertInto('batches')
      .values({
        ...template,
        id,
        status: 'validating',
        batch: JSON.stringify(batch),
        route: JSON.stringify(route),
        lease_owner: null,
        lease_until: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const failed = await waitFor(client, id, ['failed', 'completed']);
    expect(failed.status).toBe('failed');
    expect(failed.errors?.data?.[0]).toMatchObject({ code: 'batch_route_unavailable' });
    expectNone('the failed batch', JSON.stringify(failed));
  });

  it('keeps the captured key out of request-log rows and log lines', async () => {
    const db = gw.gateway.deps.store.db;
    await expect.poll(async () => (await db.selectFrom('request_logs').select('id').execute()).length).toBeGreaterThanOrEqual(8);
    expectNone('the request-log rows', JSON.stringify(await db.selectFrom('request_logs').selectAll().execute()));
    expectNone('the logs API', await (await gw.fetch('/v1/logs')).text());
    expectNone('the log lines', lines.join(''));
  });
});
