import { describe, expect, it } from 'vitest';
import { readFilter, readPage } from './scim-query.js';
import { readActive, readUser } from './scim-user-shape.js';
import { ScimError } from './scim-error.js';

function scimTypeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScimError) return err.scimType;
    throw err;
  }
  return 'no error';
}

describe('readFilter', () => {
  it('reads eq on userName, externalId, displayName and id, names and operator in any case', () => {
    expect(readFilter('userName eq "a@b.com"')).toEqual({ attribute: 'userName', value: 'a@b.com' });
    expect(readFilter('USERNAME Eq "x"')).toEqual({ attribute: 'userName', value: 'x' });
    expect(readFilter('externalId eq "00u1"')).toEqual({ attribute: 'externalId', value: '00u1' });
    expect(readFilter('urn:ietf:params:scim:schemas:core:2.0:Group:displayName eq "G"')).toEqual({ attribute: 'displayName', value: 'G' });
    expect(readFilter(undefined)).toBeUndefined();
  });

  it('anything else is invalidFilter', () => {
    for (const f of [
      'userName sw "a"',
      'userName eq "a" or userName eq "b"',
      'title eq "x"',
      'displayName eq 3',
      'emails[type eq "work"]',
      '(((',
    ]) {
      expect(
        scimTypeOf(() => readFilter(f)),
        f,
      ).toBe('invalidFilter');
    }
  });
});

describe('readPage', () => {
  it('startIndex from 1 (below counts as 1), count clamped to 0..200, non-integers invalidValue', () => {
    expect(readPage({})).toEqual({ startIndex: 1, limit: 200, offset: 0 });
    expect(readPage({ startIndex: '0', count: '5' })).toEqual({ startIndex: 1, limit: 5, offset: 0 });
    expect(readPage({ startIndex: '11', count: '1000' })).toEqual({ startIndex: 11, limit: 200, offset: 10 });
    expect(scimTypeOf(() => readPage({ count: '1.5' }))).toBe('invalidValue');
  });
});

describe('readActive and readUser', () => {
  it('active is a boolean or "True"/"False" in any case', () => {
    expect(readActive('False')).toBe(false);
    expect(readActive('TRUE')).toBe(true);
    expect(readActive(undefined)).toBe(true);
    expect(scimTypeOf(() => readActive('no'))).toBe('invalidValue');
    expect(scimTypeOf(() => readActive(0))).toBe('invalidValue');
  });

  it('takes the primary email, builds the name, never keeps the password', () => {
    const u = readUser({
      UserName: 'ann',
      emails: [{ value: 'x@e.com' }, { value: 'ann@e.com', primary: true }],
      name: { givenName: 'Ann', familyName: 'Lee' },
      password: 'secret',
      active: 'False',
    });
    expect(u).toMatchObject({ userName: 'ann', email: 'ann@e.com', name: 'Ann Lee', active: false });
    expect(u.attributes).not.toHaveProperty('password');
    expect(scimTypeOf(() => readUser({ userName: 'a@e.com', shoe: 1 }))).toBe('invalidSyntax');
  });
});
