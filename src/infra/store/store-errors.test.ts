import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isStoreUnavailable, toStoreError } from './store-errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('store errors', () => {
  it('recognises an unreachable database', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '08P01', 'ECONNREFUSED', 'ECONNRESET', 'SQLITE_BUSY'])
      expect(isStoreUnavailable(withCode(code)), code).toBe(true);
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isStoreUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isStoreUnavailable(new AggregateError([withCode('ECONNREFUSED')], ''))).toBe(true);
  });

  it('leaves query errors alone', () => {
    for (const code of ['23505', '22021', '42P01', 'SQLITE_CONSTRAINT_UNIQUE'])
      expect(isStoreUnavailable(withCode(code)), code).toBe(false);
    const unique = withCode('23505');
    expect(toStoreError(unique)).toBe(unique);
    expect(isStoreUnavailable(new GatewayError('internal_error'))).toBe(false);
  });

  it('turns an unreachable database into 503 store_unavailable, keeping the cause', () => {
    const cause = withCode('57P01', 'terminating connection due to administrator command');
    const err = toStoreError(cause) as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.toBody()).toEqual({
      error: { message: 'The database is unreachable; try again shortly.', type: 'server_error', param: null, code: 'store_unavailable' },
    });
    expect(err.status).toBe(503);
    expect(err.headers).toEqual({ 'retry-after': '1' });
    expect(err.cause).toBe(cause);
    expect(toStoreError(err)).toBe(err);
  });
});
