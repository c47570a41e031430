import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { installRouteGuard, UndeclaredPermissionError } from './route-guard.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';

function app() {
  const a = Fastify();
  a.decorateRequest('gw', null as never);
  a.addHook('onRequest', (request, _reply, done) => {
    const scopes = String(request.headers['x-scopes'] ?? '')
      .split(',')
      .filter(Boolean);
    request.gw = {
      requestId: 'r',
      traceId: 't',
      startedAt: 0,
      organisationId: 'o',
      workspaceId: 'w',
      key: {
        id: `k-${scopes.join()}`,
        organisationId: 'o',
        workspaceId: 'w',
        type: 'workspace-service',
        scopes,
        expiresAt: null,
        name: 'k',
      },
    };
    done();
  });
  a.setErrorHandler((err, _request, reply) => {
    const g = err instanceof GatewayError ? err : new GatewayError('invalid_request', (err as Error).message);
    reply.code(g.status).send(g.toBody());
  });
  installRouteGuard(a);
  return a;
}

describe('route guard', () => {
  it('refuses a /v1 route that declares no permission', async () => {
    const a = app();
    expect(() => a.get('/v1/things', async () => ({}))).toThrow(UndeclaredPermissionError);
    await a.close();
  });

  it('accepts public, own-session and non-/v1 routes; checks the declared permission before validation', async () => {
    const a = app();
    a.get('/health', async () => ({ ok: true }));
    a.get('/v1/signed', { config: { public: true } }, async () => ({ ok: true }));
    a.get('/v1/own-session', { config: { session: true } }, async () => ({ ok: true }));
    a.post(
      '/v1/things',
      { config: { permission: 'configs.write' }, schema: { body: { type: 'object', required: ['name'] } } },
      async () => ({ ok: true }),
    );
    await a.ready();
    expect((await a.inject({ url: '/v1/signed' })).statusCode).toBe(200);
    // A route about the caller's own session checks no permission (its handler checks the session).
    expect((await a.inject({ url: '/v1/own-session' })).statusCode).toBe(200);
    const denied = await a.inject({ method: 'POST', url: '/v1/things', payload: {}, headers: { 'x-scopes': 'configs.read' } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('configs.write') });
    expect((await a.inject({ method: 'POST', url: '/v1/things', payload: {}, headers: { 'x-scopes': 'configs.*' } })).statusCode).toBe(400);
    expect(
      (await a.inject({ method: 'POST', url: '/v1/things', payload: { name: 'x' }, headers: { 'x-scopes': 'configs.write' } })).statusCode,
    ).toBe(200);
    await a.close();
  });
});
