import { describe, expect, it } from 'vitest';
import { parsePromptRef, selectVersion } from './prompt-ref.js';

describe('parsePromptRef', () => {
  it('selects the published version, @latest, or @N', () => {
    expect(parsePromptRef('abc')).toEqual({ ref: 'abc', version: 'published' });
    expect(parsePromptRef('abc@latest')).toEqual({ ref: 'abc', version: 'latest' });
    expect(parsePromptRef('abc@12')).toEqual({ ref: 'abc', version: 12 });
    const p = { published_version: 2, latest_version: 5 };
    expect([selectVersion(p, 'published'), selectVersion(p, 'latest'), selectVersion(p, 3)]).toEqual([2, 5, 3]);
  });

  it('rejects a malformed suffix with 400 naming the parameter', () => {
    for (const bad of ['abc@', 'abc@0', 'abc@-1', 'abc@v2', '@3']) {
      expect(() => parsePromptRef(bad), bad).toThrow(expect.objectContaining({ status: 400, param: 'promptId' }));
    }
  });
});
