import { Writable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { localServer } from '../../../src/features/guardrails/test-support.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { SecretBox, isSealed } from '../../../src/foundation/lib/secret-box.js';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { openConfigCredentials, sealConfigCredentials } from '../../../src/foundation/lib/config-credentials.js';
import { sealStoredSecrets } from '../../../src/infra/store/seal-stored-secrets.js';
import { chat, fakeConfig } from './helpers.js';

/** Shapes no pattern redaction knows, so only sealing and masking keep them out of every output. */
const hookToken = `hooktok-${randomId(24)}`;
const hookAuth = `Bearer ${hookToken}`;
const hookApiKey = `hookkey-${randomId(24)}`;
const SECRETS = [hookToken, hookApiKey];
const hint = (v: string) => `${v.slice(0, 3)}…${v.slice(-4)}`;

type Json = Record<string, any>;

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('webhook credentials of stored guardrails', () => {
  let fake: FakeOpenAI;
  let gw: TestGateway;
  let hook: { url: string; close(): Promise<void> };
  const seen: IncomingHttpHeaders[] = [];
  const lines: string[] = [];

  const checks = (auth = hookAuth) => [
    {
      id: 'default.webhook',
      parameters: { webhookURL: `${hook.url}/verdict`, headers: { Authorization: auth, 'x-api-key': hookApiKey }, failOnError: true },
    },
  ];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await gw.fetch(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as Json };
  };
  const expectNone = (where: string, text: string) => {
    for (const v of SECRETS) expect(text.includes(v), `${where} carries ${v.slice(0, 7)}…`).toBe(false);
  };
  const row = async (id: string) =>
    (await gw.gateway.deps.store.db.selectFrom('guardrails').selectAll().where('id', '=', id).executeTakeFirst())!;
  /** A chat whose config runs the stored guardrail; the webhook passes only with the stored credentials. */
  const guarded = async (ref: string) => (await chat(gw, fakeConfig(fake, { input_guardrails: [ref] }), 'hello')).status;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-good' });
    hook = await localServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      const ok = req.headers.authorization === hookAuth && req.headers['x-api-key'] === hookApiKey;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify({ verdict: ok }));
    });
    const destination = new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString('utf8')), done()) });
    gw = await startGateway({ logger: createLogger('debug', { destination }) });
  });
  afterAll(async () => {
    await gw?.close();
    await hook?.close();
    await fake?.close();
  });

  it('stores the webhook headers sealed, answers hints, and the check still sends the real values', async () => {
    const created = await call('POST', '/v1/guardrails', { name: 'Hooked', slug: 'hooked', checks: checks(), actions: { deny: true } });
    expect(created.status).toBe(201);
    expectNone('the create answer', created.text);
    expect(created.body.checks[0].parameters).toMatchObject({
      webhookURL: `${hook.url}/verdict`,
      headers: { Authorization: hint(hookAuth), 'x-api-key': hint(hookApiKey) },
      failOnError: true,
    });
    const id = created.body.id as string;
    for (const path of [`/v1/guardrails/${id}`, '/v1/guardrails', `/v1/guardrails?ids=${id}`]) {
      const read = await call('GET', path);
      expect(read.status).toBe(200);
      expectNone(path, read.text);
    }
    const stored = await row(id);
    expectNone('the stored row', stored.checks);
    const storedChecks = JSON.parse(stored.checks) as Json[];
    expect(isSealed(storedChecks[0]!.parameters.headers.Authorization.sealed)).toBe(true);
    expect(openConfigCredentials(gw.gateway.deps.secrets, id, { checks: storedChecks }, 'guardrail')).toEqual({ checks: checks() });

    seen.length = 0;
    expect(await guarded('hooked')).toBe(200);
    expect(seen.at(-1)).toMatchObject({ authorization: hookAuth, 'x-api-key': hookApiKey });
  });

  it('keeps the stored headers when an answer is saved back with its hints, refuses a hint that stands for nothing, and replaces one sent anew', async () => {
    const read = await call('GET', '/v1/guardrails/hooked');
    const id = read.body.id as string;
    const saved = await call('PUT', '/v1/guardrails/hooked', { name: 'Hooked again', checks: read.body.checks });
    expect(saved.status).toBe(200);
    expectNone('the update answer', saved.text);
    expect(openConfigCredentials(gw.gateway.deps.secrets, id, { checks: JSON.parse((await row(id)).checks) }, 'guardrail')).toEqual({
      checks: checks(),
    });
    seen.length = 0;
    await expect.poll(() => guarded('hooked')).toBe(200);
    expect(seen.at(-1)).toMatchObject({ authorization: hookAuth, 'x-api-key': hookApiKey });

    // The answer's checks copied into another guardrail carry hints that stand for nothing there.
    const copied = await call('POST', '/v1/guardrails', { name: 'Copy', checks: read.body.checks });
    expect(copied.status).toBe(400);
    expect(copied.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_config',
      param: 'checks[0].parameters.headers.Authorization',
    });

    // A new value is a new credential: it replaces the stored one (the webhook refuses it, failOnError denies).
    const rotated = [
      {
        ...read.body.checks[0],
        parameters: {
          ...read.body.checks[0].parameters,
          headers: { ...read.body.checks[0].parameters.headers, Authorization: 'Bearer rotated-0123456789' },
        },
      },
    ];
    const replaced = await call('PUT', `/v1/guardrails/${id}`, { checks: rotated });
    expect(replaced.status).toBe(200);
    expect(replaced.body.checks[0].parameters.headers).toEqual({
      Authorization: hint('Bearer rotated-0123456789'),
      'x-api-key': hint(hookApiKey),
    });
    await expect.poll(() => guarded('hooked')).toBe(446);
    expect(seen.at(-1)).toMatchObject({ authorization: 'Bearer rotated-0123456789', 'x-api-key': hookApiKey });
  });

  it('seals a guardrail an older gateway stored in plaintext, at start, and still runs it', async () => {
    const created = await call('POST', '/v1/guardrails', {
      name: 'Legacy',
      slug: 'legacy-hook',
      checks: [{ id: 'default.wordCount', parameters: { maxWords: 50 } }],
    });
    const id = created.body.id as string;
    const db = gw.gateway.deps.store.db;
    // As a gateway without sealing wrote it: the headers in plaintext, as a JSON string (the webhook accepts both).
    const plain = [
      {
        id: 'default.webhook',
        parameters: {
          webhookURL: `${hook.url}/verdict`,
          headers: JSON.stringify({ Authorization: hookAuth, 'x-api-key': hookApiKey }),
          failOnError: true,
        },
      },
    ];
    await db
      .updateTable('guardrails')
      .set({ checks: JSON.stringify(plain) })
      .where('id', '=', id)
      .execute();
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(1);
    expectNone('the sealed legacy row', (await row(id)).checks);
    expect(openConfigCredentials(gw.gateway.deps.secrets, id, { checks: JSON.parse((await row(id)).checks) }, 'guardrail')).toEqual({
      checks: checks(),
    });
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(0);
    expectNone('the legacy answer', (await call('GET', `/v1/guardrails/${id}`)).text);
    await gw.gateway.deps.runtime.changed();
    seen.length = 0;
    expect(await guarded('legacy-hook')).toBe(200);
    expect(seen.at(-1)).toMatchObject({ authorization: hookAuth, 'x-api-key': hookApiKey });
  });

  it('answers 409 conflict, not 500, when the stored headers were sealed with another encryption key', async () => {
    const created = await call('POST', '/v1/guardrails', { name: 'Other key', slug: 'other-key', checks: checks() });
    const id = created.body.id as string;
    const foreign = sealConfigCredentials(new SecretBox(Buffer.alloc(32, 11)), id, { checks: checks() }, 'guardrail');
    await gw.gateway.deps.store.db
      .updateTable('guardrails')
      .set({ checks: JSON.stringify(foreign.checks) })
      .where('id', '=', id)
      .execute();
    const read = await call('GET', `/v1/guardrails/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.checks[0].parameters.headers.Authorization).toBe(hint(hookAuth));
    const put = await call('PUT', `/v1/guardrails/${id}`, { checks: read.body.checks });
    expect(put.status).toBe(409);
    expect(put.body.error).toMatchObject({ code: 'conflict', param: 'checks' });
    expect((await call('PUT', `/v1/guardrails/${id}`, { name: 'renamed' })).status).toBe(200);
    // Checks sent again with their credentials replace the stored ones.
    const again = await call('PUT', `/v1/guardrails/${id}`, { checks: checks() });
    expect(again.status).toBe(200);
    expectNone('the replaced answer', again.text);
    expect(openConfigCredentials(gw.gateway.deps.secrets, id, { checks: JSON.parse((await row(id)).checks) }, 'guardrail')).toEqual({
      checks: checks(),
    });
  });

  it('keeps the webhook headers out of audit rows, request-log rows and log lines', async () => {
    const db = gw.gateway.deps.store.db;
    const auditRows = JSON.stringify(await db.selectFrom('audit_logs').selectAll().where('resource_type', '=', 'guardrail').execute());
    expect(auditRows).toContain('guardrail.update');
    expectNone('the audit rows', auditRows);
    expectNone('the audit API', (await call('GET', '/v1/audit-logs')).text);
    await expect.poll(async () => (await db.selectFrom('request_logs').select('id').execute()).length).toBeGreaterThan(0);
    expectNone('the request-log rows', JSON.stringify(await db.selectFrom('request_logs').selectAll().execute()));
    expectNone('the log lines', lines.join(''));
  });
});
