import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { HttpRequestContext } from './request-context.js';

const key = {
  id: 'k',
  organisationId: 'org-b',
  workspaceId: null,
  type: 'organisation-service' as const,
  scopes: [],
  expiresAt: null,
  name: 'k',
};

function errorOf(read: () => unknown): GatewayError | undefined {
  try {
    read();
  } catch (err) {
    return err as GatewayError;
  }
  return undefined;
}

describe('HttpRequestContext', () => {
  it('has no tenant before authentication: reading it is 401, never a default workspace', () => {
    const ctx = new HttpRequestContext('r', 't', 0);
    expect(errorOf(() => ctx.workspaceId)).toMatchObject({ code: 'invalid_api_key', status: 401 });
    expect(errorOf(() => ctx.organisationId)).toMatchObject({ code: 'invalid_api_key', status: 401 });
  });

  it('an authenticated key without a workspace is 403 where one is needed', () => {
    const ctx = new HttpRequestContext('r', 't', 0);
    ctx.key = key;
    ctx.organisationId = 'org-b';
    expect(ctx.organisationId).toBe('org-b');
    expect(errorOf(() => ctx.workspaceId)).toMatchObject({ code: 'forbidden', status: 403 });
    ctx.workspaceId = 'ws-b';
    expect(ctx.workspaceId).toBe('ws-b');
  });
});
