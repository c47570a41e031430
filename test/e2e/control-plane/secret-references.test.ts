import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeVault, type FakeVault } from '../../fakes/vault/server.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../../fakes/aws-secrets-manager/server.js';
import { VAULT_HOST, selfSignedCertificate, startFakeKeyVault, type FakeKeyVault } from '../../fakes/azure-key-vault/server.js';
import { callAs, insertKey } from '../tenancy/tenant-helpers.js';
import { isSealed } from '../../../src/foundation/lib/secret-box.js';
import { fingerprintOf } from '../../../src/infra/secrets/secret-resolver.js';

/** Runs on SQLite and, in the postgres project, on PostgreSQL. */
describe('/v1/secret-references and integration secret mappings', () => {
  const PROVIDER_KEY = 'sk-from-a-secret-manager-0001';
  let gw: TestGateway;
  let openai: FakeOpenAI;
  let vault: FakeVault;
  let aws: FakeSecretsManager;
  let azure: FakeKeyVault;
  let caDir: string;
  const admin = (method: string, path: string, body?: unknown) => callAs(gw, gw.adminKey, method, path, body);
  const chat = (model: string) =>
    callAs(gw, gw.adminKey, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });

  beforeAll(async () => {
    const tls = selfSignedCertificate();
    caDir = mkdtempSync(join(tmpdir(), 'gw-ca-'));
    writeFileSync(join(caDir, 'ca.pem'), tls.cert);
    openai = await startFakeOpenAI({ apiKey: PROVIDER_KEY });
    vault = await startFakeVault({
      tokens: ['hvs.good-token-123'],
      approle: { roleId: 'role-1', secretId: 'secret-id-1' },
      secrets: { 'secret/llm/openai': { api_key: PROVIDER_KEY } },
    });
    aws = await startFakeSecretsManager({
      credentials: { accessKeyId: 'AKIAFAKEACCESS0001', secretAccessKey: 'aws-secret-access-key-0001' },
      region: 'eu-west-1',
      secrets: { 'prod/openai': JSON.stringify({ api_key: PROVIDER_KEY }), plain: 'not json' },
    });
    azure = await startFakeKeyVault({
      tenantId: 'tenant-1',
      clientId: 'app-1',
      clientSecret: 'azure-client-secret-0001',
      secrets: { 'openai-key': PROVIDER_KEY },
      tls,
    });
    gw = await startGateway({
      env: { SECRET_MANAGER_CA_FILE: join(caDir, 'ca.pem'), TRUSTED_CUSTOM_HOSTS: `localhost,127.0.0.1,::1,${VAULT_HOST}` },
      resolve: async (host) =>
        host === VAULT_HOST ? [{ address: '127.0.0.1', family: 4 }] : (await import('node:dns/promises')).lookup(host, { all: true }),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([openai?.close(), vault?.close(), aws?.close(), azure?.close()]);
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  });

  it('creates references of the three managers: auth_config sealed at rest, masked in answers and audit rows; test answers a fingerprint', async () => {
    const refs = [
      {
        name: 'vault token',
        slug: 'vault-token',
        manager_type: 'hashicorp_vault',
        auth_config: { vault_addr: vault.origin, token: 'hvs.good-token-123' },
        secret_path: 'llm/openai',
        secret_key: 'api_key',
      },
      {
        name: 'vault approle',
        slug: 'vault-approle',
        manager_type: 'hashicorp_vault',
        auth_config: { vault_addr: vault.origin, role_id: 'role-1', secret_id: 'secret-id-1' },
        secret_path: 'llm/openai',
      },
      {
        name: 'aws',
        slug: 'aws-openai',
        manager_type: 'aws_sm',
        auth_config: {
          region: 'eu-west-1',
          access_key_id: 'AKIAFAKEACCESS0001',
          secret_access_key: 'aws-secret-access-key-0001',
          endpoint: aws.origin,
        },
        secret_path: 'prod/openai',
        secret_key: 'api_key',
      },
      {
        name: 'azure',
        slug: 'azure-openai',
        manager_type: 'azure_kv',
        auth_config: {
          vault_url: azure.vaultUrl,
          tenant_id: 'tenant-1',
          client_id: 'app-1',
          client_secret: 'azure-client-secret-0001',
          authority_host: azure.origin,
        },
        secret_path: 'openai-key',
      },
    ];
    for (const r of refs) {
      const created = await admin('POST', '/v1/secret-references', r);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({
        object: 'secret_reference',
        slug: r.slug,
        manager_type: r.manager_type,
        allow_all_workspaces: true,
      });
      const test = await admin('POST', `/v1/secret-references/${r.slug}/test`);
      expect(test.status, JSON.stringify(test.body)).toBe(200);
      const expected = r.slug === 'vault-approle' ? fingerprintOf(JSON.stringify({ api_key: PROVIDER_KEY })) : fingerprintOf(PROVIDER_KEY);
      expect(test.body, r.slug).toEqual({ ok: true, fingerprint: expected });
    }
    const aws1 = (await admin('GET', '/v1/secret-references/aws-openai')).body;
    expect(aws1.auth_config).toEqual({
      region: 'eu-west-1',
      access_key_id: 'AKI…0001',
      secret_access_key: 'aws…0001',
      endpoint: aws.origin,
    });
    const db = gw.gateway.deps.store.db;
    const rows = await db.selectFrom('secret_references').selectAll().execute();
    for (const row of rows) expect(isSealed(row.auth_ciphertext)).toBe(true);
    const everything = JSON.stringify([
      rows,
      await db.selectFrom('audit_logs').selectAll().execute(),
      (await admin('GET', '/v1/secret-references')).body,
    ]);
    for (const secret of ['hvs.good-token-123', 'secret-id-1', 'aws-secret-access-key-0001', 'azure-client-secret-0001', PROVIDER_KEY])
      expect(everything).not.toContain(secret);
  });

  it('bad input: unknown fields, a Vault reference without credentials, a private URL; test of a wrong credential is ok:false', async () => {
    const cases: Array<[unknown, string]> = [
      [
        {
          name: 'x',
          manager_type: 'aws_sm',
          auth_config: { region: 'r', access_key_id: 'a', secret_access_key: 's', color: 'red' },
          secret_path: 'p',
        },
        'auth_config.color',
      ],
      [{ name: 'x', manager_type: 'hashicorp_vault', auth_config: { vault_addr: vault.origin }, secret_path: 'p' }, 'auth_config.role_id'],
      [
        { name: 'x', manager_type: 'hashicorp_vault', auth_config: { vault_addr: 'http://10.0.0.7:8200', token: 't' }, secret_path: 'p' },
        'auth_config.vault_addr',
      ],
      [
        {
          name: 'x',
          manager_type: 'azure_kv',
          auth_config: { vault_url: 'not a url', tenant_id: 't', client_id: 'c', client_secret: 's' },
          secret_path: 'p',
        },
        'auth_config.vault_url',
      ],
    ];
    for (const [body, param] of cases) {
      const res = await admin('POST', '/v1/secret-references', body);
      expect(res.status, param).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    }
    expect(
      (await admin('POST', '/v1/secret-references', { name: 'x', manager_type: 'gcp_sm', auth_config: {}, secret_path: 'p' })).status,
    ).toBe(400);
    const bad = await admin('POST', '/v1/secret-references', {
      name: 'bad',
      slug: 'vault-bad',
      manager_type: 'hashicorp_vault',
      auth_config: { vault_addr: vault.origin, token: 'hvs.wrong' },
      secret_path: 'llm/openai',
    });
    const test = await admin('POST', `/v1/secret-references/${bad.body.id}/test`);
    expect(test.body).toMatchObject({ ok: false, fingerprint: null, error: expect.stringContaining('403') });
    expect(test.body.error).not.toContain('hvs.wrong');
  });

  it('a workspace key sees no reference (404 by id, an empty list) and gets 403 on create', async () => {
    const rt = gw.gateway.deps.runtime.current;
    const wsKey = await insertKey(gw, {
      organisationId: rt.defaultOrganisationId,
      workspaceId: rt.defaultWorkspaceId,
      type: 'workspace-service',
    });
    await gw.gateway.deps.runtime.changed();
    expect((await callAs(gw, wsKey, 'GET', '/v1/secret-references/aws-openai')).status).toBe(404);
    expect((await callAs(gw, wsKey, 'GET', '/v1/secret-references')).body).toMatchObject({ data: [], total: 0 });
    expect(
      (
        await callAs(gw, wsKey, 'POST', '/v1/secret-references', {
          name: 'x',
          manager_type: 'aws_sm',
          auth_config: { region: 'r', access_key_id: 'a', secret_access_key: 's' },
          secret_path: 'p',
        })
      ).status,
    ).toBe(403);
  });

  it('an integration key mapped from each manager reaches the provider; a json mapping that does not parse is 400 at save', async () => {
    for (const [slug, mapping] of [
      ['via-vault', { target_field: 'key', secret_reference_id: 'vault-token' }],
      ['via-approle', { target_field: 'key', secret_reference_id: 'vault-approle', value_format: 'json', secret_key: 'api_key' }],
      ['via-aws', { target_field: 'key', secret_reference_id: 'aws-openai' }],
      ['via-azure', { target_field: 'key', secret_reference_id: 'azure-openai' }],
    ] as const) {
      const i = await admin('POST', '/v1/integrations', {
        name: slug,
        slug: `${slug}-int`,
        ai_provider_id: 'openai',
        configurations: { custom_host: openai.url },
        default_provider_slug: slug,
        secret_mappings: [mapping],
      });
      expect(i.status, JSON.stringify(i.body)).toBe(201);
      await expect.poll(async () => (await chat(`@${slug}/gpt-4o`)).status, { timeout: 5000 }).toBe(200);
      expect(openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    }
    const plain = await admin('POST', '/v1/secret-references', {
      name: 'plain',
      slug: 'aws-plain',
      manager_type: 'aws_sm',
      auth_config: {
        region: 'eu-west-1',
        access_key_id: 'AKIAFAKEACCESS0001',
        secret_access_key: 'aws-secret-access-key-0001',
        endpoint: aws.origin,
      },
      secret_path: 'plain',
    });
    expect(plain.status).toBe(201);
    const refused = await admin('POST', '/v1/integrations', {
      name: 'x',
      ai_provider_id: 'openai',
      create_default_provider: false,
      secret_mappings: [{ target_field: 'key', secret_reference_id: 'aws-plain', value_format: 'json', secret_key: 'api_key' }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('secret_mappings[0].value_format');
  });

  it('a manager that goes down keeps serving the cached value; with none the request is 502 naming the reference', async () => {
    await vault.close();
    // The value fetched before keeps serving, even after it is refreshed in vain.
    expect((await chat('@via-vault/gpt-4o')).status).toBe(200);
    expect((await admin('POST', '/v1/secret-references/vault-token/test')).body.ok).toBe(false);
    expect((await chat('@via-vault/gpt-4o')).status).toBe(200);
    const never = await admin('POST', '/v1/secret-references', {
      name: 'never fetched',
      slug: 'vault-down',
      manager_type: 'hashicorp_vault',
      auth_config: { vault_addr: vault.origin, token: 'hvs.good-token-123' },
      secret_path: 'llm/openai',
      secret_key: 'api_key',
    });
    const i = await admin('POST', '/v1/integrations', {
      name: 'down',
      ai_provider_id: 'openai',
      configurations: { custom_host: openai.url },
      default_provider_slug: 'via-down',
      secret_mappings: [{ target_field: 'key', secret_reference_id: never.body.id }],
    });
    expect(i.status).toBe(201);
    const res = await chat('@via-down/gpt-4o');
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain(never.body.id);
    expect(res.body.error.message).toContain('never fetched');
  });

  it('a provider 401 re-resolves the reference once and retries with the rotated value', async () => {
    const rotated = 'sk-rotated-in-aws-0002';
    aws.options.secrets['prod/openai'] = JSON.stringify({ api_key: rotated });
    openai.options.apiKey = rotated;
    const before = aws.requests.length;
    const res = await chat('@via-aws/gpt-4o');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(openai.requests.at(-1)!.headers.authorization).toBe(`Bearer ${rotated}`);
    expect(aws.requests.length).toBe(before + 1);
  });
});
