import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, startGateway, TEST_STORE, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

/** Terminates every backend of the gateway's pool (found by the application_name the store sets); returns how many. */
async function terminateBackends(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const r = await client.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [
      `ai-gateway/${schema}`,
    ]);
    return r.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

async function isSleeping(schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const r = await client.query(
      "select 1 from pg_stat_activity where application_name = $1 and query like 'select pg_sleep%' and state = 'active'",
      [`ai-gateway/${schema}`],
    );
    return (r.rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

async function countLogRows(schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const r = await client.query(`select count(*)::int as n from ${schema}.request_logs where endpoint = 'chat'`);
    return r.rows[0].n as number;
  } finally {
    await client.end();
  }
}

describe.runIf(TEST_STORE === 'postgres')('PostgreSQL connections terminated under load', () => {
  let gw: TestGateway;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    gw = await startGateway({ store: 'postgres' });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  const chat = () =>
    gw.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.url, authorization: 'Bearer sk' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('fails a query whose connection is terminated with 503 store_unavailable, and the next query reconnects', async () => {
    const db = gw.gateway.deps.store.db;
    const sleeping = sql`select pg_sleep(10)`.execute(db);
    const settled = sleeping.then(
      () => null,
      (err: unknown) => err,
    );
    // Wait until the sleep is running, then terminate it (with every other backend of the pool).
    for (let i = 0; i < 100 && !(await isSleeping(gw.pgSchema!)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await terminateBackends(gw.pgSchema!)).toBeGreaterThan(0);
    const err = await settled;
    expect(err).toMatchObject({ name: 'GatewayError', code: 'store_unavailable', status: 503 });
    expect((err as Error).cause).toMatchObject({ code: '57P01' });
    // The pool replaces the dead connections: a query may still meet one the pool has not yet seen die
    // (a 503 as well), then they succeed.
    let one: number | undefined;
    for (let i = 0; i < 10 && one === undefined; i++) {
      try {
        one = (await sql<{ one: number }>`select 1 as one`.execute(db)).rows[0]!.one;
      } catch (e) {
        expect(e).toMatchObject({ code: 'store_unavailable' });
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(one).toBe(1);
  });

  it('keeps serving: store reads answer 200 or 503 store_unavailable, it recovers, and no request-log row is lost', async () => {
    const schema = gw.pgSchema!;
    const seen: Record<number, number> = {};
    const refusals: unknown[] = [];
    let chats = 0;
    let stop = false;
    const note = async (res: Response) => {
      seen[res.status] = (seen[res.status] ?? 0) + 1;
      if (res.status !== 200) refusals.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() });
      else await res.arrayBuffer();
    };
    const client = async () => {
      while (!stop) {
        const c = await chat();
        chats++;
        // The data plane serves from its snapshot: it never waits for the store.
        expect(c.status).toBe(200);
        await note(c);
        await note(await gw.fetch('/v1/configs'));
        await note(await gw.fetch('/v1/logs?page_size=1'));
      }
    };
    const clients = [client(), client(), client()];
    await new Promise((r) => setTimeout(r, 300));
    let terminated = 0;
    // Terminate every backend of the pool again and again for a while: idle ones, ones mid-query, fresh ones.
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      terminated += await terminateBackends(schema);
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(clients);

    expect(terminated).toBeGreaterThan(0);
    for (const r of refusals)
      expect(r).toMatchObject({
        status: 503,
        retryAfter: '1',
        body: { error: { code: 'store_unavailable', type: 'server_error', param: null } },
      });
    expect(seen[200]).toBeGreaterThan(0);

    // Recovered: the store answers again (a dead connection still in the pool costs one more 503 at most).
    let recovered = await gw.fetch('/v1/configs');
    for (let i = 0; i < 50 && recovered.status !== 200; i++) {
      await note(recovered);
      await new Promise((r) => setTimeout(r, 100));
      recovered = await gw.fetch('/v1/configs');
    }
    expect(recovered.status).toBe(200);
    for (const r of refusals) expect(r).toMatchObject({ status: 503, body: { error: { code: 'store_unavailable' } } });
    // Every answered chat request has its log row, written after the outage at the latest.
    await gw.gateway.deps.logs.flush();
    const deadline = Date.now() + 10_000;
    while ((await countLogRows(schema)) < chats && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await countLogRows(schema)).toBe(chats);
    expect(gw.gateway.deps.logs.dropped).toBe(0);
  });
});
