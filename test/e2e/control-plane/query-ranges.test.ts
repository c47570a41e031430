import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * Numbers an admin query or body passes to SQL are range-checked in the schema: a time or page past what
 * every store can hold is 400 `invalid_request` naming the parameter, the same on SQLite and PostgreSQL
 * (PostgreSQL answered 500 for a bigint overflow, and the NDJSON export dropped the connection).
 */
describe('numeric ranges of admin parameters', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  const huge = '9200000000000000';
  const queries: Array<[string, string]> = [
    ['/v1/logs', 'start_time'],
    ['/v1/logs', 'end_time'],
    ['/v1/logs/export', 'start_time'],
    ['/v1/logs/export', 'end_time'],
    ['/v1/logs/tail', 'start_time'],
    ['/v1/audit-logs', 'start_time'],
    ['/v1/audit-logs', 'end_time'],
    ['/v1/analytics/groups/model', 'start_time'],
    ['/v1/analytics/groups/model', 'end_time'],
    ['/v1/logs/groups/model', 'start_time'],
    ['/v1/analytics/graphs/requests', 'end_time'],
    ['/v1/logs', 'current_page'],
    ['/v1/audit-logs', 'current_page'],
    ['/v1/configs', 'current_page'],
    ['/v1/api-keys', 'current_page'],
    ['/v1/analytics/groups/model', 'current_page'],
  ];
  for (const [path, param] of queries) {
    it(`${path}?${param}=${huge} is 400 naming ${param}`, async () => {
      const res = await gw.fetch(`${path}?${param}=${huge}`, {
        headers: { accept: path.endsWith('/tail') ? 'text/event-stream' : 'application/json' },
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; param: string; message: string } };
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.param).toBe(`querystring.${param}`);
      expect(body.error.message).toContain('must be <=');
    });
  }

  it('accepts the last representable time and page', async () => {
    for (const path of [
      '/v1/logs?start_time=8640000000000',
      '/v1/audit-logs?end_time=8640000000000',
      '/v1/logs?current_page=1000000000',
      '/v1/analytics/groups/model?start_time=0&end_time=8640000000000',
    ]) {
      const res = await gw.fetch(path);
      expect(res.status, path).toBe(200);
    }
    const exported = await gw.fetch('/v1/logs/export?start_time=0&end_time=8640000000000');
    expect(exported.status).toBe(200);
    await exported.text();
  });

  it('refuses an API key expiry or transition period past a storable time', async () => {
    const expiring = await gw.fetch('/v1/api-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'organisation-service', name: 'far', expires_at: 9.2e15 }),
    });
    expect(expiring.status).toBe(400);
    expect(((await expiring.json()) as { error: { param: string } }).error.param).toBe('body.expires_at');
    const created = await gw.fetch('/v1/api-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'organisation-service', name: 'rotating' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const rotated = await gw.fetch(`/v1/api-keys/${id}/rotate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key_transition_period_ms: 9.2e18 }),
    });
    expect(rotated.status).toBe(400);
    expect(((await rotated.json()) as { error: { param: string } }).error.param).toBe('body.key_transition_period_ms');
  });
});
