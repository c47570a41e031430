import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { readSettings } from '../../src/data-plane/pipeline/settings.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/server/create-gateway.js';
import { createLogger } from '../../src/infra/observability/logger.js';
import { randomId } from '../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../src/infra/store/store.js';

export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** `GATEWAY_ENCRYPTION_KEY` of test gateways on PostgreSQL (required there; replicas share it). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** Which store the end-to-end suite runs on: `sqlite` (default) or `postgres` (TEST_STORE=postgres). */
export const TEST_STORE = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

export interface TestGateway {
  /** http://127.0.0.1:<port> */
  url: string;
  /** PostgreSQL schema of its store (undefined on SQLite): pass as `pgSchema` to start a second replica. */
  pgSchema?: string;
  adminKey: string;
  gateway: Gateway;
  /** An openai SDK client going through the gateway with the admin key and these extra headers. */
  openai(headers?: Record<string, string>, opts?: { apiKey?: string; maxRetries?: number }): OpenAI;
  /** fetch() against the gateway with the admin key (override with `x-gateway-api-key`). */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface StartOptions extends GatewayOptions {
  /** Environment overrides (REDIS_URL, API_KEY_PREFIX, ...). */
  env?: Record<string, string>;
  /** Store to use; default TEST_STORE. */
  store?: 'sqlite' | 'postgres';
  /** Reuse this PostgreSQL schema (a second replica of another test gateway); it is not dropped on close. */
  pgSchema?: string;
}

/**
 * Starts a real gateway on 127.0.0.1 with a fresh store (a temporary SQLite file, or its own
 * PostgreSQL schema), a known admin key, quiet logs and short retry backoff.
 */
export async function startGateway(opts: StartOptions = {}): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-test-'));
  const adminKey = 'test-admin-' + randomId(24);
  const store = opts.store ?? TEST_STORE;
  const ownsSchema = store === 'postgres' && !opts.pgSchema;
  const schema = opts.pgSchema ?? (store === 'postgres' ? `t_${randomId(12).toLowerCase()}` : undefined);
  const settings = readSettings({
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    PORT: '0',
    LOG_LEVEL: 'silent',
    GATEWAY_RETRY_BASE_MS: '5',
    ...(schema ? { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, GATEWAY_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY } : {}),
    ...opts.env,
  });
  const gateway = await createGateway(settings, { logger: createLogger('silent'), ...opts });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (gateway.app.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pgSchema: schema,
    adminKey,
    gateway,
    openai(headers = {}, o = {}) {
      return new OpenAI({
        baseURL: `${url}/v1`,
        apiKey: o.apiKey ?? 'sk-provider-key',
        maxRetries: o.maxRetries ?? 0,
        defaultHeaders: { 'x-gateway-api-key': adminKey, ...headers },
      });
    },
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has('x-gateway-api-key')) headers.set('x-gateway-api-key', adminKey);
      if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(url + path, { ...init, headers });
    },
    async close() {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema && ownsSchema) await dropPostgresSchema(PG_URL, schema);
    },
  };
}
