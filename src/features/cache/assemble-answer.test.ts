import { describe, expect, it } from 'vitest';
import { AnswerAssembler } from './assemble-answer.js';
import { replayChunks } from './replay-stream.js';

const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o', system_fingerprint: 'fp' };
const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ ...head, choices, ...extra });

describe('AnswerAssembler', () => {
  it('assembles content, reasoning, tool calls, finish reason and usage from chat chunks', () => {
    const a = new AnswerAssembler('chat');
    a.push(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    a.push(chunk([{ index: 0, delta: { reasoning_content: 'think ' }, finish_reason: null }]));
    a.push(chunk([{ index: 0, delta: { reasoning_content: 'more' }, finish_reason: null }]));
    a.push(
      chunk([
        { index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }] } },
      ]),
    );
    a.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] } }]));
    a.push(
      chunk([
        { index: 0, delta: { tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'other', arguments: '{}' } }] } },
      ]),
    );
    a.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] } }]));
    a.push(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]));
    a.push(chunk([], { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }));
    expect(a.result()).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'gpt-4o',
      system_fingerprint: 'fp',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            reasoning_content: 'think more',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
              { id: 'call_2', type: 'function', function: { name: 'other', arguments: '{}' } },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('keeps several choices apart and assembles text completions', () => {
    const a = new AnswerAssembler('chat');
    a.push(
      chunk([
        { index: 1, delta: { content: 'B' } },
        { index: 0, delta: { content: 'A' } },
      ]),
    );
    a.push(
      chunk([
        { index: 0, delta: { content: '1' }, finish_reason: 'stop' },
        { index: 1, delta: {}, finish_reason: 'length' },
      ]),
    );
    const r = a.result() as { choices: Array<{ index: number; message: { content: string }; finish_reason: string }> };
    expect(r.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, 'A1', 'stop'],
      [1, 'B', 'length'],
    ]);
    const t = new AnswerAssembler('completions');
    t.push({
      id: 'cmpl-1',
      object: 'text_completion',
      created: 1,
      model: 'i',
      choices: [{ index: 0, text: ' echo', finish_reason: null }],
    });
    t.push({
      id: 'cmpl-1',
      object: 'text_completion',
      created: 1,
      model: 'i',
      choices: [{ index: 0, text: ': hi', finish_reason: 'stop' }],
    });
    expect(t.result()).toEqual({
      id: 'cmpl-1',
      object: 'text_completion',
      created: 1,
      model: 'i',
      choices: [{ index: 0, text: ' echo: hi', logprobs: null, finish_reason: 'stop' }],
    });
  });

  it('has no result for a stream without choices', () => {
    expect(new AnswerAssembler('chat').result()).toBeUndefined();
  });
});

describe('replayChunks', () => {
  const completion = {
    id: 'chatcmpl-9',
    object: 'chat.completion',
    created: 1700000001,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'hi there',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  };

  it('produces chunks that assemble back into the same answer', () => {
    const chunks = replayChunks('chat', completion)!;
    expect(chunks[0]).toMatchObject({ object: 'chat.completion.chunk', id: 'chatcmpl-9', choices: [{ delta: { role: 'assistant' } }] });
    expect(chunks.at(-1)).toEqual({
      id: 'chatcmpl-9',
      object: 'chat.completion.chunk',
      created: 1700000001,
      model: 'gpt-4o',
      choices: [],
      usage: completion.usage,
    });
    const a = new AnswerAssembler('chat');
    for (const c of chunks) a.push(c);
    expect(a.result()).toEqual(completion);
  });

  it('replays text completions and refuses values that are not completions', () => {
    const text = {
      id: 'cmpl-2',
      object: 'text_completion',
      created: 2,
      model: 'i',
      choices: [{ index: 0, text: 'x y', logprobs: null, finish_reason: 'stop' }],
    };
    const a = new AnswerAssembler('completions');
    for (const c of replayChunks('completions', text)!) a.push(c);
    expect(a.result()).toEqual(text);
    expect(replayChunks('chat', { object: 'list', data: [] })).toBeUndefined();
    expect(replayChunks('embeddings', completion)).toBeUndefined();
    expect(replayChunks('responses', completion)).toBeUndefined();
    expect(replayChunks('chat', 'not json')).toBeUndefined();
  });
});
