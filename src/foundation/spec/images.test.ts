import { describe, expect, it } from 'vitest';
import { imageSizeOf } from './images.js';

describe('imageSizeOf (providers that map sizes)', () => {
  it('takes the five sizes and defaults to 1024x1024', () => {
    expect(imageSizeOf({ prompt: 'p' })).toBe('1024x1024');
    expect(imageSizeOf({ prompt: 'p', size: '1792x1024' })).toBe('1792x1024');
  });

  it("refuses a newer model's size it cannot map, naming size", () => {
    for (const size of ['1536x1024', 'auto'])
      expect(() => imageSizeOf({ prompt: 'p', size })).toThrow(expect.objectContaining({ status: 400, param: 'size' }));
  });
});
