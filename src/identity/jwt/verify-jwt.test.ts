import { describe, expect, it } from 'vitest';
import { looksLikeJwt } from './verify-jwt.js';

describe('looksLikeJwt', () => {
  it('is true only for three dot-separated segments starting eyJ', () => {
    expect(looksLikeJwt('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln')).toBe(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.')).toBe(true);
    expect(looksLikeJwt('gw-0123456789abcdef')).toBe(false);
    expect(looksLikeJwt('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0')).toBe(false);
    expect(looksLikeJwt('eyJhbGciOiJSUzI1NiJ9..c2ln')).toBe(false);
    expect(looksLikeJwt('eyJa.b.c.d')).toBe(false);
  });
});
