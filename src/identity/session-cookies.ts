import { createHash, timingSafeEqual } from 'node:crypto';

/** The cookie holding a console session's token (HttpOnly). */
export const SESSION_COOKIE = 'gw_session';
/** The cookie holding the session's CSRF token (readable by the console's JavaScript). */
export const CSRF_COOKIE = 'gw_csrf';
/** The header a write made with a session cookie carries, equal to the `gw_csrf` cookie. */
export const CSRF_HEADER = 'x-gateway-csrf';

/** The value of cookie `name` in a `Cookie` header, or undefined (first occurrence wins). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value.length ? value : undefined;
  }
  return undefined;
}

/**
 * The CSRF token of a session, derived from its token (so a `gw_csrf` cookie planted by another site
 * or subdomain does not match another session): base64url SHA-256 of `csrf:<token>`.
 */
export function csrfOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`).digest('base64url');
}

/** Whether `presented` equals `expected`, in constant time. */
export function sameToken(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Attributes shared by both cookies: whole site, `SameSite=Lax`, `Secure` over https. */
function attributes(maxAgeSeconds: number, secure: boolean): string {
  return `Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The two `Set-Cookie` values that start a session: its token (HttpOnly) and its CSRF token. */
export function sessionCookies(token: string, maxAgeSeconds: number, secure: boolean): string[] {
  return [
    `${SESSION_COOKIE}=${token}; ${attributes(maxAgeSeconds, secure)}; HttpOnly`,
    `${CSRF_COOKIE}=${csrfOf(token)}; ${attributes(maxAgeSeconds, secure)}`,
  ];
}

/** The two `Set-Cookie` values that clear them (logout). */
export function clearedCookies(secure: boolean): string[] {
  return [`${SESSION_COOKIE}=; ${attributes(0, secure)}; HttpOnly`, `${CSRF_COOKIE}=; ${attributes(0, secure)}`];
}
