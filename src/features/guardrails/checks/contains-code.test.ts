import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { containsCode, fencedBlocks } from './contains-code.js';

describe('default.containsCode', () => {
  it('finds fenced blocks with their language (aliases normalized)', () => {
    expect(fencedBlocks('a\n```py\nprint(1)\n```\nb\n```\nx\n```')).toEqual([
      { lang: 'python', code: 'print(1)\n' },
      { lang: '', code: 'x\n' },
    ]);
  });

  it('passes on a fenced block labelled with the format, fails on another language', async () => {
    const text = 'Try this:\n```js\nconsole.log(1)\n```';
    expect((await containsCode.run(after(text), { format: 'javascript' })).verdict).toBe(true);
    expect((await containsCode.run(after(text), { format: 'JS' })).verdict).toBe(true);
    expect((await containsCode.run(after(text), { format: 'python' })).verdict).toBe(false);
  });

  it('uses heuristics for unlabelled blocks and unfenced text', async () => {
    expect((await containsCode.run(after('```\nSELECT id FROM users WHERE a = 1;\n```'), { format: 'sql' })).verdict).toBe(true);
    expect((await containsCode.run(before('def add(a, b):\n    return a + b'), { format: 'python' })).verdict).toBe(true);
    expect((await containsCode.run(before('I like snakes and tables.'), { format: 'python' })).verdict).toBe(false);
    expect((await containsCode.run(before('I like snakes and tables.'), { format: 'sql' })).verdict).toBe(false);
  });

  it('without format, any code passes and prose fails', async () => {
    expect((await containsCode.run(after('```rust\nfn main() {}\n```'), {})).verdict).toBe(true);
    expect((await containsCode.run(after('Just a sentence.'), {})).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => containsCode.validateParams({ format: 42 })).toThrow(/default\.containsCode\.format: must be a string/);
    expect(() => containsCode.validateParams({ format: '' })).toThrow(/format: must not be empty/);
  });
});
