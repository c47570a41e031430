import { describe, expect, it } from 'vitest';
import { StringTree } from './string-tree.js';

describe('StringTree', () => {
  it('keeps values by tuples of two, three or four strings, never confusing tuples that join alike', () => {
    const two = new StringTree<number>();
    two.set(1, 'openai', 'gpt-4o');
    two.set(2, 'openai\ngpt', '4o');
    two.set(3, '', 'openai\ngpt-4o');
    expect([two.get('openai', 'gpt-4o'), two.get('openai\ngpt', '4o'), two.get('', 'openai\ngpt-4o'), two.get('openai', 'gpt')]).toEqual([
      1,
      2,
      3,
      undefined,
    ]);
    expect(two.size).toBe(3);
    two.set(4, 'openai', 'gpt-4o');
    expect([two.get('openai', 'gpt-4o'), two.size]).toEqual([4, 3]);

    const four = new StringTree<string>();
    four.set('a', 'chat', 'openai', 'gpt-4o', '');
    four.set('b', 'chat', 'openai', 'gpt-4o', 'timeout');
    four.set('c', 'chat', 'openai\u0000gpt-4o', '', '');
    expect([
      four.get('chat', 'openai', 'gpt-4o', ''),
      four.get('chat', 'openai', 'gpt-4o', 'timeout'),
      four.get('chat', 'openai\u0000gpt-4o', '', ''),
      four.get('chat', 'openai', 'gpt', ''),
    ]).toEqual(['a', 'b', 'c', undefined]);
    expect(four.get('embeddings', 'openai', 'gpt-4o', '')).toBeUndefined();

    const three = new StringTree<boolean>();
    three.set(true, 'x', 'y', 'z');
    expect([three.get('x', 'y', 'z'), three.get('x', 'y', 'w'), three.get('x', 'q', 'z')]).toEqual([true, undefined, undefined]);
  });
});
