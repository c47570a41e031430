import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { SecretBox, isSealed } from './secret-box.js';
import { openHeaders, openValues, overrideHeaders, sealHeaders, sealValues } from './sealed-values.js';

const box = () => new SecretBox(randomBytes(32));

describe('sealed values and headers', () => {
  it('seals values together under their context, hints each one, and opens only under that context', () => {
    const b = box();
    const { sealed, hints } = sealValues(b, 'id-1:configurations', {
      aws_secret_access_key: 'aws-secret-0123456789',
      service_account_json: { k: 1 },
    });
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('aws-secret');
    expect(hints).toEqual({ aws_secret_access_key: 'aws…6789', service_account_json: '…' });
    expect(openValues(b, 'id-1:configurations', sealed)).toEqual({
      aws_secret_access_key: 'aws-secret-0123456789',
      service_account_json: { k: 1 },
    });
    expect(() => openValues(b, 'id-2:configurations', sealed)).toThrow();
    expect(sealValues(b, 'x', {})).toEqual({ sealed: '', hints: {} });
    expect(openValues(b, 'x', '')).toEqual({});
  });

  it('header names keep their case unless lowerCase; a loaded row is opened once', () => {
    const b = box();
    const mixed = sealHeaders(b, 'row-1', { Authorization: 'Bearer token-0123456789' });
    expect(mixed.hints).toEqual({ Authorization: 'Bea…6789' });
    const lower = sealHeaders(b, 'row-1', { Authorization: 'Bearer token-0123456789' }, { lowerCase: true });
    expect(lower.hints).toEqual({ authorization: 'Bea…6789' });
    const row = { id: 'row-1' };
    const opened = openHeaders(b, row, 'row-1', lower.sealed);
    expect(opened).toEqual({ authorization: 'Bearer token-0123456789' });
    expect(openHeaders(b, row, 'row-1', lower.sealed)).toBe(opened);
    expect(openHeaders(b, {}, 'row-1', '')).toEqual({});
    expect(() => openHeaders(b, {}, 'row-2', lower.sealed)).toThrow();
  });

  it('an override replaces every spelling of a header name', () => {
    expect(overrideHeaders({ Authorization: 'a', 'X-Other': 'o' }, { authorization: 'b' })).toEqual({ 'X-Other': 'o', authorization: 'b' });
    expect(overrideHeaders({ a: '1' }, {})).toEqual({ a: '1' });
  });
});
