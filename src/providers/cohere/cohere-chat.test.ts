import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HttpClient } from '../../foundation/lib/http-client.js';
import { FakeClock } from '../../foundation/lib/clock.js';
import type { CallContext, ProviderTarget } from '../provider.js';
import type { ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { cohereProvider } from './cohere-provider.js';
import { toCohereChatRequest, mapCohereChatResponse } from './cohere-chat.js';
import { convertToCohereMessages } from './convert-to-cohere-messages.js';
import { mapCohereFinishReason } from './map-cohere-finish-reason.js';

const http = new HttpClient();
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

function ctx(target: Partial<ProviderTarget> = {}, stream = false): CallContext {
  return {
    target: { provider: 'cohere', apiKey: 'co-key', config: {}, forwardHeaders: {}, ...target },
    stream,
    signal: new AbortController().signal,
    http,
    clock: new FakeClock(1_700_000_000_000),
  };
}

describe('convertToCohereMessages', () => {
  it('maps every role, images and tool turns', () => {
    const out = convertToCohereMessages([
      { role: 'system', content: 'be nice' },
      {
        role: 'developer',
        content: [
          { type: 'text', text: 'dev ' },
          { type: 'text', text: 'note' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
      { role: 'assistant', content: 'It is a cat.' },
    ]);
    expect(out).toEqual([
      { role: 'system', content: 'be nice' },
      { role: 'system', content: 'dev note' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'assistant',
        tool_plan: 'Let me check.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
      { role: 'assistant', content: 'It is a cat.' },
    ]);
  });

  it('refuses parts and roles Cohere does not take', () => {
    expect(() => convertToCohereMessages([{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }])).toThrow(/input_audio/);
    expect(() => convertToCohereMessages([{ role: 'function', name: 'f', content: 'x' }])).toThrow(/role 'function'/);
    expect(() => convertToCohereMessages([{ role: 'tool', content: 'x' }])).toThrow(/tool_call_id/);
  });
});

describe('toCohereChatRequest', () => {
  it('maps sampling, limits, stop, format, thinking and tools', () => {
    const req: ChatCompletionRequest = {
      model: 'command-r-plus-08-2024',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 10,
      max_completion_tokens: 20,
      temperature: 0.3,
      top_p: 0.9,
      seed: 7,
      stop: 'END',
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      thinking: { type: 'enabled', budget_tokens: 500 },
      tools: [
        {
          type: 'function',
          function: { name: 'a', description: 'A', parameters: { type: 'object', properties: { x: { type: 'string' } } }, strict: true },
        },
        { type: 'function', function: { name: 'b' } },
      ],
      tool_choice: { type: 'function', function: { name: 'b' } },
    };
    expect(toCohereChatRequest(req, true)).toEqual({
      model: 'command-r-plus-08-2024',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      max_tokens: 20,
      temperature: 0.3,
      p: 0.9,
      seed: 7,
      stop_sequences: ['END'],
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      response_format: { type: 'json_object', json_schema: { type: 'object' } },
      thinking: { type: 'enabled', token_budget: 500 },
      tools: [{ type: 'function', function: { name: 'b', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'REQUIRED',
      strict_tools: true,
    });
    const none = toCohereChatRequest({ messages: [{ role: 'user', content: 'x' }], tools: req.tools, tool_choice: 'none' }, false);
    expect(none.tool_choice).toBe('NONE');
    expect(none.model).toBe('command-a-03-2025');
    expect(none.stream).toBeUndefined();
    expect(toCohereChatRequest({ messages: [], tools: req.tools, tool_choice: 'auto' }, false).tool_choice).toBeUndefined();
  });

  it('builds the call: /v2/chat on custom_host, Bearer auth, forwarded headers, no key refused', async () => {
    const call = await cohereProvider.endpoints.chat!.buildRequest(
      { model: 'm', messages: [{ role: 'user', content: 'x' }] },
      ctx({ customHost: 'http://127.0.0.1:5/', forwardHeaders: { 'x-a': '1' } }, true),
    );
    expect(call.url).toBe('http://127.0.0.1:5/v2/chat');
    expect(call.headers.authorization).toBe('Bearer co-key');
    expect(call.headers.accept).toBe('text/event-stream');
    expect(call.headers['x-a']).toBe('1');
    expect(JSON.parse(call.body as string).stream).toBe(true);
    const real = await cohereProvider.endpoints.chat!.buildRequest({ messages: [] }, ctx());
    expect(real.url).toBe('https://api.cohere.com/v2/chat');
    expect(() => cohereProvider.endpoints.chat!.buildRequest({ messages: [] }, ctx({ apiKey: undefined }))).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'api_key' }),
    );
  });
});

describe('mapCohereChatResponse', () => {
  const req: ChatCompletionRequest = { model: 'command-a-03-2025', messages: [] };

  it('maps text and usage (tokens, cached tokens)', () => {
    const out = mapCohereChatResponse(fixture('cohere-chat.json'), req, ctx());
    expect(out).toMatchObject({
      id: 'chatcmpl-c14c80c3-18eb-4519-9460-6c92edd8cfb4',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'command-a-03-2025',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: { role: 'assistant', content: expect.stringMatching(/^LLMs stand for/) },
        },
      ],
      usage: { prompt_tokens: 214, completion_tokens: 29, total_tokens: 243, prompt_tokens_details: { cached_tokens: 192 } },
    });
  });

  it('maps tool calls (null arguments → {}) with the tool plan as content', () => {
    const out = mapCohereChatResponse(fixture('cohere-tool-call.json'), req, ctx());
    const choice = out.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('I will search the weather for Toronto.');
    expect(choice.message.tool_calls).toEqual([
      { id: 'get_weather_1byjy32y4hvq', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Toronto"}' } },
      { id: 'get_time_j8s0f3tw8x2v', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
  });

  it('maps thinking blocks to reasoning_content', () => {
    const out = mapCohereChatResponse(fixture('cohere-reasoning.json'), req, ctx());
    expect(out.choices[0]!.message).toMatchObject({ content: '4', reasoning_content: 'The user asks for 2+2. That is 4.' });
  });

  it('turns ERROR and TIMEOUT generations into provider errors', () => {
    const body = { ...fixture('cohere-chat.json'), finish_reason: 'ERROR' };
    expect(() => mapCohereChatResponse(body, req, ctx())).toThrow(expect.objectContaining({ code: 'provider_error', status: 502 }));
    expect(() => mapCohereChatResponse({ ...body, finish_reason: 'TIMEOUT' }, req, ctx())).toThrow(
      expect.objectContaining({ status: 504 }),
    );
  });

  it('maps finish reasons', () => {
    expect(['COMPLETE', 'STOP_SEQUENCE', 'MAX_TOKENS', 'TOOL_CALL'].map(mapCohereFinishReason)).toEqual([
      'stop',
      'stop',
      'length',
      'tool_calls',
    ]);
  });
});

describe('mapCohereError', () => {
  it('keeps status and message, types by status, keeps retry-after', () => {
    const e = cohereProvider.mapError(400, JSON.stringify(fixture('cohere-error-400.json')), {});
    expect(e).toMatchObject({ code: 'provider_error', status: 400, type: 'invalid_request_error', provider: 'cohere' });
    expect(e.message).toMatch(/^invalid request: message must be/);
    const limited = cohereProvider.mapError(429, '{"message":"too many requests"}', { 'retry-after': '3' });
    expect(limited).toMatchObject({ status: 429, type: 'rate_limit_error', headers: { 'retry-after': '3' } });
    expect(cohereProvider.mapError(503, 'upstream connect error', {}).message).toBe('upstream connect error');
  });
});
