import { describe, expect, it } from 'vitest';
import { StreamTextTally, estimatePromptTokens, estimateTokens, textOfChoices, totalTokensOf } from './estimate-tokens.js';
import { loadTokenCounter } from '../../foundation/lib/token-counter.js';
import type { Usage } from '../../foundation/spec/chat.js';

describe('token estimates (gpt-tokenizer, o200k_base)', () => {
  it('counts text tokens and treats special-token text as plain text', async () => {
    const count = await loadTokenCounter();
    expect(count('hello world')).toBe(2);
    expect(count('hi <|endoftext|> there')).toBeGreaterThan(3);
  });

  it('estimates chat prompts with per-message framing, completion prompts and embeddings inputs', async () => {
    const count = await loadTokenCounter();
    const chat = {
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hello world' },
            { type: 'image_url', image_url: { url: 'x' } },
          ],
        },
      ],
    };
    expect(estimatePromptTokens(count, chat)).toBe(3 + (4 + count('be brief')) + (4 + 2));
    expect(estimatePromptTokens(count, { prompt: 'hello world' })).toBe(2);
    expect(estimatePromptTokens(count, { input: ['hello world', 'hello world'] })).toBe(4);
    expect(estimatePromptTokens(count, { input: [[1, 2, 3], [4]] })).toBe(4);
    expect(estimatePromptTokens(count, {})).toBe(0);
    expect(await estimateTokens({ prompt: 'hello world' }, 'hello world')).toBe(4);
  });
});

describe('answer text', () => {
  it('reads message and delta content, reasoning, tool calls and completion text', () => {
    expect(textOfChoices([{ message: { content: 'a' } }, { message: { content: [{ type: 'text', text: 'b' }] } }])).toBe('ab');
    expect(textOfChoices([{ delta: { content: 'x', reasoning_content: 'r' } }])).toBe('xr');
    expect(textOfChoices([{ delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"q":1}' } }] } }])).toBe('f{"q":1}');
    expect(textOfChoices([{ text: 'done' }])).toBe('done');
    expect(textOfChoices(undefined)).toBe('');
  });

  it('a stream tally assembles deltas and keeps the usage chunk', () => {
    const t = new StreamTextTally();
    t.push({ choices: [{ delta: { role: 'assistant', content: '' } }] });
    t.push({ choices: [{ delta: { content: 'echo: ' } }] });
    t.push({ choices: [{ delta: { content: 'hi' } }] });
    expect(t.text).toBe('echo: hi');
    expect(t.usage).toBeUndefined();
    t.push({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    expect(t.usage?.total_tokens).toBe(5);
  });

  it('total tokens of a usage object in either naming', () => {
    expect(totalTokensOf({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 })).toBe(5);
    expect(totalTokensOf({ prompt_tokens: 3, completion_tokens: 2 } as Usage)).toBe(5);
    expect(totalTokensOf({ input_tokens: 7, output_tokens: 1 } as unknown as Usage)).toBe(8);
    expect(totalTokensOf({} as Usage)).toBeUndefined();
    expect(totalTokensOf(undefined)).toBeUndefined();
  });
});
