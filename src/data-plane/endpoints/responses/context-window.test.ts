import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../foundation/spec/chat.js';
import { contextWindowOf, DEFAULT_CONTEXT_WINDOW, fitToContextWindow } from './context-window.js';

describe('contextWindowOf', () => {
  // The catalogue's windows first (gpt-4-32k: 32,000; gpt-4.1: 1,000,000), the table for models it has none for.
  it.each([
    ['gpt-4', 8_192],
    ['gpt-4-0613', 8_192],
    ['gpt-4-32k', 32_000],
    ['gpt-4o-mini', 128_000],
    ['@openai-prod/gpt-4o-mini', 128_000],
    ['gpt-4.1-nano', 1_000_000],
    ['gpt-3.5-turbo', 16_385],
    ['o3-mini', 200_000],
    ['claude-sonnet-4-20250514', 200_000],
    ['us.anthropic.claude-3-5-sonnet-20241022-v2:0', 200_000],
    ['gemini-1.5-pro', 1_000_000],
    ['gemini-2.5-flash', 1_048_576],
    ['llama2', 4_096],
    ['some-unknown-model', DEFAULT_CONTEXT_WINDOW],
  ])('%s → %i', (model, window) => expect(contextWindowOf(model)).toBe(window));
});

describe('fitToContextWindow', () => {
  const words = (n: number) => 'hello '.repeat(n);
  const convo = (): ChatMessage[] => [
    { role: 'system', content: 'sys' },
    { role: 'user', content: words(3000) },
    { role: 'assistant', content: words(3000) },
    { role: 'user', content: words(3000) },
  ];

  it('keeps input that fits', async () => {
    const m = [{ role: 'user' as const, content: 'hi' }];
    expect(await fitToContextWindow(m, 'gpt-4', 'disabled')).toBe(m);
  });

  it('disabled: input over the window → 400 naming input', async () => {
    await expect(fitToContextWindow(convo(), 'gpt-4', 'disabled')).rejects.toMatchObject({
      status: 400,
      param: 'input',
      message: expect.stringContaining('8192'),
    });
  });

  it('auto: drops the oldest turns, keeps the system message, starts with a user turn', async () => {
    const kept = await fitToContextWindow(convo(), 'gpt-4', 'auto');
    expect(kept.map((m) => m.role)).toEqual(['system', 'user']);
    expect(String(kept[1]!.content).length).toBe(words(3000).length);
  });

  it('auto: a last message alone over the window still fails', async () => {
    await expect(fitToContextWindow([{ role: 'user', content: words(9000) }], 'gpt-4', 'auto')).rejects.toMatchObject({ status: 400 });
  });
});
