import { describe, expect, it } from 'vitest';
import { after } from '../test-support.js';
import { notNull } from './not-null.js';

describe('default.notNull', () => {
  it('passes on a non-blank answer and fails on a blank one', async () => {
    expect((await notNull.run(after('hi'), {})).verdict).toBe(true);
    expect((await notNull.run(after('  \n'), {})).verdict).toBe(false);
  });

  it('passes on a tool-call answer without text', async () => {
    const body = {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
        },
      ],
    };
    expect((await notNull.run(after('', body), {})).verdict).toBe(true);
  });

  it('runs only after the request and rejects non-object parameters', () => {
    expect(notNull.phases).toEqual(['afterRequestHook']);
    expect(() => notNull.validateParams(7)).toThrow(/default\.notNull: parameters must be an object/);
  });
});
