import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../../src/infra/store/store.js';
import { PG_URL } from '../../helpers/gateway.js';
import { runGatewayToExit, spawnGateway } from '../../helpers/processes.js';

/** Start-up faults (operations.md §3): each writes a line naming its cause and exits with its code, or waits. */
const schemas: string[] = [];
function newSchema(): string {
  const schema = `t_${randomId(12).toLowerCase()}`;
  schemas.push(schema);
  return schema;
}
afterAll(async () => {
  for (const s of schemas) await dropPostgresSchema(PG_URL, s);
});

const KEY = Buffer.alloc(32, 7).toString('base64');

function lines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('start-up on PostgreSQL (own processes)', () => {
  it('two replicas started together on an empty database both become ready', async () => {
    for (let round = 0; round < 2; round++) {
      const schema = newSchema();
      const env = { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, GATEWAY_ADMIN_KEY: 'race-admin-' + randomId(16) };
      const [a, b] = await Promise.all([spawnGateway(env), spawnGateway(env)]);
      try {
        for (const gw of [a, b]) {
          expect((await fetch(gw.url + '/health/ready')).status).toBe(200);
          expect((await fetch(gw.url + '/v1/configs', { headers: { 'x-gateway-api-key': gw.adminKey } })).status).toBe(200);
        }
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    }
  }, 120_000);

  it('a replica waits while the migration lock is held, and goes on when its holder dies', async () => {
    const schema = newSchema();
    const holder = new pg.Client({ connectionString: PG_URL });
    holder.on('error', () => {});
    await holder.connect();
    await holder.query('select pg_advisory_lock(hashtext($1))', [`ai-gateway migrations ${schema}`]);
    const starting = spawnGateway({ DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, LOG_LEVEL: 'info' });
    // Until the replica's lock session shows up, then long enough for it to log its wait.
    for (let i = 0; i < 600; i++) {
      const { rowCount } = await holder.query('select 1 from pg_stat_activity where application_name = $1', [
        `ai-gateway/migrations/${schema}`,
      ]);
      if (rowCount) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1_500));
    // The holder "crashes": its session ends without unlocking.
    (holder as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const gw = await starting;
    try {
      expect(gw.output(), gw.output()).toContain('waiting for migration lock');
      expect((await fetch(gw.url + '/health/ready')).status).toBe(200);
    } finally {
      await gw.stop();
    }
  }, 90_000);

  it('DATABASE_URL without GATEWAY_ENCRYPTION_KEY: one line naming the variable, exit 2', async () => {
    const { code, output } = await runGatewayToExit({
      DATABASE_URL: PG_URL,
      DATABASE_SCHEMA: newSchema(),
      GATEWAY_ENCRYPTION_KEY: '',
      GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-fault-')),
    });
    expect(code).toBe(2);
    expect(lines(output).some((l) => String(l.msg).includes('GATEWAY_ENCRYPTION_KEY'))).toBe(true);
  }, 60_000);

  it('a malformed setting: one line naming it, exit 2', async () => {
    const { code, output } = await runGatewayToExit({
      GATEWAY_SHUTDOWN_DELAY_MS: 'soon',
      GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-fault-')),
    });
    expect(code).toBe(2);
    expect(lines(output).some((l) => String(l.msg).includes('GATEWAY_SHUTDOWN_DELAY_MS'))).toBe(true);
  }, 60_000);

  it('GATEWAY_DATA_DIR not writable: one line naming it, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-fault-'));
    writeFileSync(join(dir, 'file'), '');
    const { code, output } = await runGatewayToExit({ GATEWAY_DATA_DIR: join(dir, 'file', 'data') });
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(2);
    expect(lines(output).some((l) => String(l.msg).includes('GATEWAY_DATA_DIR'))).toBe(true);
  }, 60_000);

  it('the store unreachable at start: a line per attempt, then exit 3 after GATEWAY_STORE_WAIT_MS', async () => {
    const { code, output } = await runGatewayToExit({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
      GATEWAY_ENCRYPTION_KEY: KEY,
      GATEWAY_STORE_WAIT_MS: '2500',
      GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-fault-')),
    });
    expect(code).toBe(3);
    const attempts = lines(output).filter((l) => String(l.msg).includes('store unreachable'));
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts[attempts.length - 1]).toMatchObject({ exitCode: 3 });
  }, 60_000);

  it("a later release's expand step is run as it is; a later contract step (schema ahead) is refused with exit 4", async () => {
    const schema = newSchema();
    const env = { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema };
    let gw = await spawnGateway(env);
    await gw.stop();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(
        `insert into ${schema}.kysely_migration (name, timestamp) values ('9999-a-later-expand-step', '2030-01-01T00:00:00.000Z')`,
      );
      gw = await spawnGateway(env);
      expect((await fetch(gw.url + '/health/ready')).status).toBe(200);
      await gw.stop();
      await client.query(`update ${schema}.schema_compat set min_level = 99`);
    } finally {
      await client.end();
    }
    const { code, output } = await runGatewayToExit({
      ...env,
      GATEWAY_ENCRYPTION_KEY: KEY,
      GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-fault-')),
    });
    expect(code).toBe(4);
    expect(lines(output).some((l) => String(l.msg).includes('schema'))).toBe(true);
  }, 90_000);
});
