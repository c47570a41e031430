import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { createLogger } from '../../../src/infra/observability/logger.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';
import { randomId } from '../../../src/foundation/lib/ids.js';

/**
 * An OpenAI-like upstream that accepts one key and, like some real providers, echoes a wrong key in
 * its error message. Records the keys it received.
 */
function startEchoUpstream(accepted: () => string): Promise<{ url: string; keys: string[]; close(): Promise<void> }> {
  const keys: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      keys.push(key);
      res.setHeader('content-type', 'application/json');
      if (key !== accepted()) {
        res.statusCode = 401;
        res.end(
          JSON.stringify({
            error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
          }),
        );
        return;
      }
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        keys,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('provider credentials at rest and out of every output', () => {
  // Shapes no pattern redaction knows: only exact-value handling keeps them out.
  const secret = `prov-cred-${randomId(20)}`;
  const rotated = `prov-cred-${randomId(20)}`;
  const wrong = `prov-wrong-${randomId(20)}`;
  let accepted = secret;
  const lines: string[] = [];
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;

  beforeAll(async () => {
    upstream = await startEchoUpstream(() => accepted);
    const destination = new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString('utf8')), done()) });
    gw = await startGateway({ logger: createLogger('debug', { destination }) });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  it('stores the key sealed, uses it, and shows it in no answer, log line, log row, audit row, error or OpenAPI document', async () => {
    const created = await gw.fetch('/v1/providers', {
      method: 'POST',
      body: JSON.stringify({ name: 'Echo', slug: 'echo', provider: 'openai', key: secret, config: { custom_host: upstream.url } }),
    });
    const createdText = await created.text();
    expect(created.status).toBe(201);
    expect(createdText).not.toContain(secret);
    const id = (JSON.parse(createdText) as { id: string }).id;

    const row = await gw.gateway.deps.store.db.selectFrom('virtual_keys').select('secret').where('id', '=', id).executeTakeFirstOrThrow();
    expect(isSealed(row.secret)).toBe(true);
    expect(gw.gateway.deps.secrets.decrypt(row.secret, id)).toBe(secret);

    const client = gw.openai({ 'x-gateway-virtual-key': 'echo' });
    const ok = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] });
    expect(ok.choices[0]!.message.content).toBe('hi');
    expect(upstream.keys.at(-1)).toBe(secret);

    // The upstream now refuses it and echoes the key it got in its message.
    accepted = wrong;
    const failure = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] })
      .catch((e: Error) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { status?: number }).status).toBe(401);
    expect(JSON.stringify(failure)).not.toContain(secret);
    expect((failure as Error).message).not.toContain(secret);

    const updated = await gw.fetch(`/v1/providers/${id}`, { method: 'PUT', body: JSON.stringify({ key: rotated }) });
    expect(updated.status).toBe(200);
    expect(await updated.text()).not.toContain(rotated);
    accepted = rotated;
    await expect
      .poll(
        async () =>
          await gw
            .openai({ 'x-gateway-virtual-key': 'echo' })
            .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
            .then(
              () => 'ok',
              () => 'no',
            ),
      )
      .toBe('ok');
    expect(upstream.keys.at(-1)).toBe(rotated);

    const read = await (await gw.fetch(`/v1/providers/${id}`)).text();
    const list = await (await gw.fetch('/v1/providers')).text();
    const openapi = await (await gw.fetch('/openapi.json')).text();
    const db = gw.gateway.deps.store.db;
    await expect.poll(async () => (await db.selectFrom('request_logs').select('id').execute()).length).toBeGreaterThanOrEqual(3);
    const logRows = JSON.stringify(await db.selectFrom('request_logs').selectAll().execute());
    const auditRows = JSON.stringify(await db.selectFrom('audit_logs').selectAll().execute());
    expect(auditRows).toContain(id);
    const virtualKeyRows = JSON.stringify(await db.selectFrom('virtual_keys').selectAll().execute());
    const logged = lines.join('');
    expect(logged.length).toBeGreaterThan(0);
    for (const value of [secret, rotated]) {
      for (const [where, text] of Object.entries({ read, list, openapi, logRows, auditRows, virtualKeyRows, logged })) {
        expect(text.includes(value), `${where} carries a credential`).toBe(false);
      }
    }
  });

  it('seals credential settings inside a provider config, shows their hints, opens them for the runtime, and seals legacy plaintext ones at start', async () => {
    const token = `cfg-token-${randomId(20)}`;
    const created = await gw.fetch('/v1/providers', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Cfg',
        slug: 'cfg',
        provider: 'openai',
        key: secret,
        config: { custom_host: upstream.url, session_token: token },
      }),
    });
    const body = (await created.json()) as { id: string; config: Record<string, unknown> };
    expect(created.status).toBe(201);
    expect(body.config).toEqual({ custom_host: upstream.url, session_token: `${token.slice(0, 3)}…${token.slice(-4)}` });
    const db = gw.gateway.deps.store.db;
    const row = await db.selectFrom('virtual_keys').select('config').where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row.config).not.toContain(token);
    const stored = JSON.parse(row.config) as Record<string, { sealed: string }>;
    expect(isSealed(stored.session_token!.sealed)).toBe(true);
    const ws = gw.gateway.deps.runtime.current.defaultWorkspaceId;
    expect(gw.gateway.deps.runtime.current.virtualKeys.get(`${ws}:${body.id}`)?.config.session_token).toBe(token);

    // Sending the answer's config back unchanged keeps the credential; a new value replaces it.
    const roundTrip = await gw.fetch(`/v1/providers/${body.id}`, { method: 'PUT', body: JSON.stringify({ config: body.config }) });
    expect(roundTrip.status).toBe(200);
    await expect.poll(() => gw.gateway.deps.runtime.current.virtualKeys.get(`${ws}:${body.id}`)?.config.session_token).toBe(token);

    // A row an older gateway wrote in plaintext is sealed by the start-up step.
    const legacy = { ...stored, service_account_json: { private_key: 'legacy-private-key-value' } };
    await db
      .updateTable('virtual_keys')
      .set({ config: JSON.stringify(legacy) })
      .where('id', '=', body.id)
      .execute();
    const { sealStoredSecrets } = await import('../../../src/infra/store/seal-stored-secrets.js');
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(1);
    const resealed = (await db.selectFrom('virtual_keys').select('config').where('id', '=', body.id).executeTakeFirstOrThrow()).config;
    expect(resealed).not.toContain('legacy-private-key-value');
    expect(await sealStoredSecrets(gw.gateway.deps.store, gw.gateway.deps.secrets)).toBe(0);
    await gw.gateway.deps.runtime.changed();
    expect(gw.gateway.deps.runtime.current.virtualKeys.get(`${ws}:${body.id}`)?.config.service_account_json).toEqual({
      private_key: 'legacy-private-key-value',
    });
  });
});
