import { describe, expect, it } from 'vitest';
import { prefixedId, randomId, uuid } from './ids.js';

describe('ids', () => {
  it('makes prefixed alphanumeric ids that do not repeat, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = prefixedId('chatcmpl-');
      expect(id).toMatch(/^chatcmpl-[A-Za-z0-9]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
    expect(randomId(48)).toHaveLength(48);
    expect(uuid()).toMatch(/^[0-9a-f-]{36}$/);
  });
});
