import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { FakeOtlpReceiver } from '../../fakes/otlp/server.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { SecretBox, isSealed } from '../../../src/foundation/lib/secret-box.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { openConfigCredentials, sealConfigCredentials } from '../../../src/foundation/lib/config-credentials.js';
import { sealStoredSecrets } from '../../../src/infra/store/seal-stored-secrets.js';

/** Shapes no pattern redaction knows, so only sealing and masking keep them out of every output. */
const apiKey = `cfgkey-${randomId(24)}`;
const rotatedKey = `cfgrot-${randomId(24)}`;
const awsSecret = `awssec-${randomId(24)}`;
const awsToken = `awstok-${randomId(24)}`;
const privateKey = `saprivate-${randomId(24)}`;
const hookAuth = `Bearer hookauth-${randomId(24)}`;
const inlineKey = `inline-${randomId(24)}`;
const SECRETS = [apiKey, rotatedKey, awsSecret, awsToken, privateKey, hookAuth.slice('Bearer '.length), inlineKey];
const hint = (v: string) => `${v.slice(0, 3)}…${v.slice(-4)}`;

type Json = Record<string, any>;

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('provider credentials inside stored configs', () => {
  let fake: FakeOpenAI;
  let receiver: FakeOtlpReceiver;
  let gw: TestGateway;
  const lines: string[] = [];

  const config = (key: string) => ({
    strategy: { mode: 'fallback' },
    targets: [
      {
        provider: 'openai',
        api_key: key,
        custom_host: fake.url,
        input_guardrails: [
          { 'default.webhook': { webhookURL: `${fake.url}/hook`, headers: { Authorization: hookAuth, 'x-team': 'alpha' } } },
        ],
      },
      {
        provider: 'bedrock',
        cloud1_access_key_id: 'AKIDEXAMPLE',
        cloud1_secret_access_key: awsSecret,
        cloud1_session_token: awsToken,
        cloud1_region: 'us-east-1',
      },
      {
        provider: 'vertex-ai',
        cloud2_region: 'us-central1',
        cloud2_project_id: 'proj',
        cloud2_service_account_json: { client_email: 'a@b.c', private_key: privateKey },
      },
    ],
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await gw.fetch(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Json };
  };
  const chat = (headers: Record<string, string>) =>
    gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    });
  const expectNone = (where: string, text: string, values = SECRETS) => {
    for (const v of values) expect(text.includes(v), `${where} carries ${v.slice(0, 6)}…`).toBe(false);
  };
  const versionRows = async (id: string) =>
    gw.gateway.deps.store.db.selectFrom('config_versions').selectAll().where('config_id', '=', id).orderBy('version').execute();

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey });
    receiver = await new FakeOtlpReceiver().start();
    const destination = new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString('utf8')), done()) });
    gw = await startGateway({
      logger: createLogger('debug', { destination }),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    await receiver?.close();
  });

  it('stores every credential member sealed, answers only hints, and routes with the real key', async () => {
    const created = await call('POST', '/v1/configs', { name: 'Sealed', slug: 'sealed', config: config(apiKey) });
    expect(created.status).toBe(201);
    expectNone('the create answer', created.text);
    const [t0, t1, t2] = created.body.config.targets as Json[];
    expect(t0!.api_key).toBe(hint(apiKey));
    expect(t0!.input_guardrails[0]['default.webhook'].headers).toEqual({ Authorization: hint(hookAuth), 'x-team': '…' });
    expect(t1).toMatchObject({
      cloud1_access_key_id: 'AKIDEXAMPLE',
      cloud1_secret_access_key: hint(awsSecret),
      cloud1_session_token: hint(awsToken),
      cloud1_region: 'us-east-1',
    });
    expect(typeof t2!.cloud2_service_account_json).toBe('string');

    const id = created.body.id as string;
    for (const path of [`/v1/configs/${id}`, '/v1/configs', `/v1/configs/${id}/versions`]) {
      const read = await call('GET', path);
      expect(read.status).toBe(200);
      expectNone(path, read.text);
    }
    const explained = await call('POST', '/v1/configs/explain', { config_id: id });
    expect(explained.status).toBe(200);
    expectNone('the explanation', explained.text);

    const [row] = await versionRows(id);
    expectNone('the stored version', row!.config);
    const stored = JSON.parse(row!.config) as Json;
    expect(isSealed(stored.targets[0].api_key.sealed)).toBe(true);
    expect(isSealed(stored.targets[2].cloud2_service_account_json.sealed)).toBe(true);
    expect(openConfigCredentials(gw.gateway.deps.secrets, id, stored)).toEqual(config(apiKey));

    const res = await chat({ 'x-gateway-config': 'sealed' });
    expect(res.status).toBe(200);
    expect(fake.requests.filter((r) => r.path.startsWith('/v1/chat')).at(-1)!.headers.authorization).toBe(`Bearer ${apiKey}`);
  });

  it('keeps the stored secrets when an answer is saved back with its hints, also with targets moved, and replaces one sent anew', async () => {
    const read = await call('GET', '/v1/configs/sealed');
    const answered = read.body.config as Json;
    // Saved back as read, the bedrock and vertex targets swapped and a retry added.
    const back = { ...answered, retry: { attempts: 1 }, targets: [answered.targets[0], answered.targets[2], answered.targets[1]] };
    const saved = await call('PUT', '/v1/configs/sealed', { config: back });
    expect(saved.status).toBe(200);
    expect(saved.body.version).toBe(2);
    expectNone('the update answer', saved.text);
    const id = read.body.id as string;
    const v2 = (await versionRows(id))[1]!;
    expectNone('version 2', v2.config);
    const want = config(apiKey);
    expect(openConfigCredentials(gw.gateway.deps.secrets, id, JSON.parse(v2.config))).toEqual({
      ...want,
      retry: { attempts: 1 },
      targets: [want.targets[0], want.targets[2], want.targets[1]],
    });
    await expect.poll(async () => (await chat({ 'x-gateway-config': 'sealed' })).status).toBe(200);
    expect(fake.requests.filter((r) => r.path.startsWith('/v1/chat')).at(-1)!.headers.authorization).toBe(`Bearer ${apiKey}`);

    // An answer's config copied into a new config carries hints that stand for nothing there: refused.
    const copied = await call('POST', '/v1/configs', { name: 'Copy', config: answered });
    expect(copied.status).toBe(400);
    expect(copied.body.error).toMatchObject({ code: 'invalid_config', param: 'config.targets[0].api_key' });

    // A new value is a new credential: it replaces the stored one (the fake refuses it).
    const rotated = { ...back, targets: [{ ...back.targets[0], api_key: rotatedKey }, back.targets[1], back.targets[2]] };
    const replaced = await call('PUT', '/v1/configs/sealed', { config: rotated });
    expect(replaced.status).toBe(200);
    expect(replaced.body.config.targets[0].api_key).toBe(hint(rotatedKey));
    await expect.poll(async () => (await chat({ 'x-gateway-config': 'sealed' })).status).not.toBe(200);
    expect(fake.requests.filter((r) => r.path.startsWith('/v1/chat')).at(-1)!.headers.authorization).toBe(`Bearer ${rotatedKey}`);
  });

  it('seals a version an older gateway stored in plaintext, at start, and still routes with it', async () => {
    const created = await call('POST', '/v1/configs', {
      name: 'Legacy',
      slug: 'legacy',
      config: { provider: 'openai', api_key: 'placeholder-value', custom_host: fake.url },
    });
    const id = created.body.id as string;
    const plain = config(apiKey);
    const db = gw.gateway.deps.store.db;
    // Version 2 as a gateway without sealing wrote it: the body in plaintext.
    await db
      .insertInto('config_versions')
      .values({ config_id: id, version: 2, config: JSON.stringify(plain), created_at: Date.now() })
      .execute();
    await db.updateTable('configs').set({ version: 2 }).where('id', '=', id).execute();
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(1);
    const row = (await versionRows(id))[1]!;
    expectNone('the sealed legacy version', row.config);
    expect(openConfigCredentials(gw.gateway.deps.secrets, id, JSON.parse(row.config))).toEqual(plain);
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(0);
    expectNone('the legacy answer', (await call('GET', `/v1/configs/${id}`)).text);
    // A new snapshot compiles version 2 from the (now sealed) row.
    await gw.gateway.deps.runtime.changed();
    expect((await chat({ 'x-gateway-config': 'legacy' })).status).toBe(200);
    expect(fake.requests.filter((r) => r.path.startsWith('/v1/chat')).at(-1)!.headers.authorization).toBe(`Bearer ${apiKey}`);
  });

  it('answers 409 conflict, not 500, when the stored credentials were sealed with another encryption key', async () => {
    const created = await call('POST', '/v1/configs', {
      name: 'Other key',
      slug: 'other-key',
      config: { provider: 'openai', api_key: apiKey, custom_host: fake.url },
    });
    const id = created.body.id as string;
    const other = new SecretBox(Buffer.alloc(32, 11));
    const foreign = sealConfigCredentials(other, id, { provider: 'openai', api_key: apiKey, custom_host: fake.url });
    await gw.gateway.deps.store.db
      .updateTable('config_versions')
      .set({ config: JSON.stringify(foreign) })
      .where('config_id', '=', id)
      .execute();
    const read = await call('GET', `/v1/configs/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.config.api_key).toBe(hint(apiKey));
    const put = await call('PUT', `/v1/configs/${id}`, { config: read.body.config });
    expect(put.status).toBe(409);
    expect(put.body.error).toMatchObject({ code: 'conflict', param: 'config' });
    const explained = await call('POST', '/v1/configs/explain', { config_id: id });
    expect(explained.status).toBe(409);
    expect(explained.body.error).toMatchObject({ code: 'conflict', param: 'config_id' });
    expect((await call('PUT', `/v1/configs/${id}`, { name: 'renamed' })).status).toBe(200);
  });

  it('keeps config credentials, stored or inline, out of audit rows, request-log rows, log lines and traces', async () => {
    const trace = '6cf92f3577b34da6a3ce929d0e0e4738';
    const inline = JSON.stringify({ provider: 'openai', api_key: inlineKey, custom_host: fake.url });
    const refused = await chat({ 'x-gateway-config': inline, traceparent: `00-${trace}-00f067aa0ba902b7-01` });
    expect(refused.status).toBe(401);
    expectNone('the refusal', await refused.text());
    const okTrace = '6cf92f3577b34da6a3ce929d0e0e4739';
    const ok = await chat({
      'x-gateway-config': JSON.stringify({ provider: 'openai', api_key: apiKey, custom_host: fake.url }),
      traceparent: `00-${okTrace}-00f067aa0ba902b7-01`,
    });
    expect(ok.status).toBe(200);
    const db = gw.gateway.deps.store.db;
    await expect
      .poll(async () => (await db.selectFrom('request_logs').select('id').where('trace_id', 'in', [trace, okTrace]).execute()).length)
      .toBe(2);
    expect((await receiver.trace(trace, 3)).length).toBeGreaterThanOrEqual(3);
    const auditRows = JSON.stringify(await db.selectFrom('audit_logs').selectAll().where('resource_type', '=', 'config').execute());
    expect(auditRows).toContain('config.update');
    expectNone('the audit rows', auditRows);
    expectNone('the request-log rows', JSON.stringify(await db.selectFrom('request_logs').selectAll().execute()));
    expectNone('the audit API', (await call('GET', '/v1/audit-logs')).text);
    expectNone('the logs API', (await call('GET', '/v1/logs')).text);
    expectNone('the log lines', lines.join(''));
    expectNone('the spans', JSON.stringify(receiver.spans));
  });
});
