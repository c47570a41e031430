import { describe, expect, it } from 'vitest';
import { clearedCookies, cookieValue, csrfOf, sameToken, sessionCookies } from './session-cookies.js';

describe('session cookies', () => {
  it('reads one cookie of a Cookie header (first occurrence; empty is absent; names match exactly)', () => {
    expect(cookieValue('a=1; gw_session=tok; b=2', 'gw_session')).toBe('tok');
    expect(cookieValue('gw_session=one; gw_session=two', 'gw_session')).toBe('one');
    expect(cookieValue('x_gw_session=tok', 'gw_session')).toBeUndefined();
    expect(cookieValue('gw_session=', 'gw_session')).toBeUndefined();
    expect(cookieValue('broken; gw_csrf=c', 'gw_csrf')).toBe('c');
    expect(cookieValue(undefined, 'gw_session')).toBeUndefined();
  });

  it('derives a CSRF token per session token and compares in constant time', () => {
    expect(csrfOf('a')).toBe(csrfOf('a'));
    expect(csrfOf('a')).not.toBe(csrfOf('b'));
    expect(sameToken(csrfOf('a'), csrfOf('a'))).toBe(true);
    expect(sameToken(csrfOf('b'), csrfOf('a'))).toBe(false);
    expect(sameToken('short', csrfOf('a'))).toBe(false);
    expect(sameToken(undefined, csrfOf('a'))).toBe(false);
  });

  it('sets gw_session HttpOnly and gw_csrf readable, both Lax on /, Secure only when asked; clearing expires both', () => {
    const [session, csrf] = sessionCookies('tok', 900, false);
    expect(session).toBe('gw_session=tok; Path=/; Max-Age=900; SameSite=Lax; HttpOnly');
    expect(csrf).toBe(`gw_csrf=${csrfOf('tok')}; Path=/; Max-Age=900; SameSite=Lax`);
    expect(sessionCookies('tok', 900, true).every((c) => c.includes('; Secure'))).toBe(true);
    expect(clearedCookies(false)).toEqual([
      'gw_session=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly',
      'gw_csrf=; Path=/; Max-Age=0; SameSite=Lax',
    ]);
  });
});
