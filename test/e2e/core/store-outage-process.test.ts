import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { randomId } from '../../../src/foundation/lib/ids.js';
import { dropPostgresSchema } from '../../../src/infra/store/store.js';
import { PG_URL } from '../../helpers/gateway.js';
import { spawnGateway, type GatewayProcess } from '../../helpers/processes.js';

/**
 * A database restart, failover or idle-closing proxy terminates the pool's idle connections. The
 * pool's 'error' event must not become an uncaught exception: the process lives and reconnects.
 */
describe('a gateway process on PostgreSQL whose connections are terminated (own process)', () => {
  const schema = `t_${randomId(12).toLowerCase()}`;
  let gw: GatewayProcess | undefined;

  afterAll(async () => {
    await gw?.stop();
    await dropPostgresSchema(PG_URL, schema);
  });

  it('survives, answers again, and logs the lost connection as a warning', async () => {
    gw = await spawnGateway({ DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema });
    const admin = { headers: { 'x-gateway-api-key': gw.adminKey } };
    expect((await fetch(gw.url + '/v1/configs', admin)).status).toBe(200);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const r = await client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [
      `ai-gateway/${schema}`,
    ]);
    await client.end();
    expect(r.rowCount).toBeGreaterThan(0);
    await new Promise((res) => setTimeout(res, 500));
    expect(gw.child.exitCode).toBeNull();
    expect((await fetch(gw.url + '/health')).status).toBe(200);
    expect((await fetch(gw.url + '/v1/configs', admin)).status).toBe(200);
    expect(gw.output()).toContain('store connection lost');
  });
});
