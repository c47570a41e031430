import { describe, expect, it } from 'vitest';
import {
  assembleStreamText,
  hasToolCalls,
  mapRequestTexts,
  mapResponseTexts,
  requestTextOf,
  responseTextOf,
  StreamTextAssembler,
} from './text-of.js';

describe('requestTextOf', () => {
  it('reads the last chat message (string or text parts)', () => {
    expect(
      requestTextOf({
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'hello' },
        ],
      }),
    ).toBe('hello');
    expect(
      requestTextOf({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image_url', image_url: { url: 'x' } },
              { type: 'text', text: 'b' },
            ],
          },
        ],
      }),
    ).toBe('a\nb');
  });

  it('reads a completion prompt, embeddings input and responses input', () => {
    expect(requestTextOf({ model: 'm', prompt: 'say hi' })).toBe('say hi');
    expect(requestTextOf({ model: 'm', prompt: ['one', 'two'] })).toBe('one\ntwo');
    expect(requestTextOf({ model: 'm', input: ['x', 'y'] })).toBe('x\ny');
    expect(requestTextOf({ model: 'm', input: [1, 2, 3] })).toBe('');
    expect(requestTextOf({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'r' }] }] })).toBe('r');
    expect(requestTextOf(null)).toBe('');
  });
});

describe('responseTextOf', () => {
  it('reads chat and text completions and responses output', () => {
    expect(responseTextOf({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }] })).toBe(
      'hi',
    );
    expect(responseTextOf({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null } }] })).toBe('');
    expect(responseTextOf({ object: 'text_completion', choices: [{ index: 0, text: 'done' }] })).toBe('done');
    expect(responseTextOf({ output: [{ type: 'message', content: [{ type: 'output_text', text: 'out' }] }] })).toBe('out');
  });
});

describe('StreamTextAssembler', () => {
  it('assembles chat and completion chunks per choice, ignoring usage-only chunks', () => {
    const chunks = [
      { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] },
      { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hel' } }] },
      { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] },
      { object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 1 } },
    ];
    expect(assembleStreamText(chunks)).toBe('Hello');
    const asm = new StreamTextAssembler();
    asm.push({ choices: [{ index: 1, text: 'b' }] });
    asm.push({ choices: [{ index: 0, text: 'a' }] });
    asm.push('garbage');
    expect(asm.text()).toBe('a\nb');
  });
});

describe('mapRequestTexts / mapResponseTexts', () => {
  const up = (s: string) => s.toUpperCase();

  it('rewrites every message and leaves the original untouched', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'a' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'b' },
            { type: 'image_url', image_url: { url: 'u' } },
          ],
        },
      ],
    };
    const out = mapRequestTexts(body, up);
    expect(out).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'A' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'B' },
            { type: 'image_url', image_url: { url: 'u' } },
          ],
        },
      ],
    });
    expect(body.messages[0].content).toBe('a');
    expect(mapRequestTexts({ prompt: ['x', 'y'] }, up)).toEqual({ prompt: ['X', 'Y'] });
    expect(mapRequestTexts({ input: 'z' }, up)).toEqual({ input: 'Z' });
  });

  it('rewrites answer texts', () => {
    expect(
      mapResponseTexts(
        {
          choices: [
            { index: 0, message: { role: 'assistant', content: 'hi' } },
            { index: 1, text: 'yo' },
          ],
        },
        up,
      ),
    ).toEqual({
      choices: [
        { index: 0, message: { role: 'assistant', content: 'HI' } },
        { index: 1, text: 'YO' },
      ],
    });
  });

  it('detects tool calls', () => {
    expect(hasToolCalls({ choices: [{ message: { tool_calls: [{ id: 'a' }] } }] })).toBe(true);
    expect(hasToolCalls({ choices: [{ message: { content: 'x' } }] })).toBe(false);
  });
});
