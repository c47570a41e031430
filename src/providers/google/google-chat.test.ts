import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { FakeClock } from '../../foundation/lib/clock.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import type { ChatCompletionRequest } from '../../foundation/spec/chat.js';
import type { CallContext } from '../provider.js';
import { googleProvider } from './google-provider.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

function ctx(over: Partial<CallContext['target']> = {}, stream = false): CallContext {
  return {
    target: { provider: 'google', apiKey: 'AIza-test', config: {}, forwardHeaders: {}, ...over },
    stream,
    signal: new AbortController().signal,
    http: new HttpClient(),
    clock: new FakeClock(1_700_000_000_000),
  };
}

const chat = googleProvider.endpoints.chat!;

async function build(req: ChatCompletionRequest, c = ctx()) {
  const call = await chat.buildRequest(req, c);
  return { call, body: JSON.parse(String(call.body)) };
}

describe('google chat buildRequest', () => {
  it('targets generateContent with the key header, or the SSE stream method, on custom_host', async () => {
    const { call } = await build({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect(call.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent');
    expect(call.headers['x-goog-api-key']).toBe('AIza-test');
    expect(call.headers.authorization).toBeUndefined();
    const s = await build(
      { model: 'models/gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
      ctx({ customHost: 'http://127.0.0.1:9/', forwardHeaders: { 'x-trace': '1' } }, true),
    );
    expect(s.call.url).toBe('http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(s.call.headers['x-trace']).toBe('1');
  });

  it('refuses a call without a key or a model', async () => {
    await expect(async () => chat.buildRequest({ model: 'g', messages: [] }, ctx({ apiKey: undefined }))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'api_key',
    });
    await expect(async () => chat.buildRequest({ messages: [] }, ctx())).rejects.toMatchObject({ param: 'model' });
  });

  it('maps system, images, tool calls and tool results', async () => {
    const { body } = await build({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.webp?x=1' } },
            { type: 'image_url', image_url: { url: 'gs://bucket/doc.pdf' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"answer":"a cat"}' },
        { role: 'tool', tool_call_id: 'call_1', content: 'plain text' },
      ],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use metric units.' }] });
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is in these?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { fileUri: 'https://example.com/cat.webp?x=1', mimeType: 'image/webp' } },
          { fileData: { fileUri: 'gs://bucket/doc.pdf', mimeType: 'application/pdf' } },
        ],
      },
      { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'cat' } } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'lookup', response: { answer: 'a cat' } } },
          { functionResponse: { name: 'lookup', response: { content: 'plain text' } } },
        ],
      },
    ]);
  });

  it('sends back thought signatures, and a dummy one for gemini-3 when the client lost it', async () => {
    const call = { id: 'c', type: 'function' as const, function: { name: 'f', arguments: '{}' } };
    const messages = (tc: object): ChatCompletionRequest['messages'] => [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [tc as typeof call] },
      { role: 'tool', tool_call_id: 'c', content: '1' },
    ];
    const kept = await build({
      model: 'gemini-2.5-flash',
      messages: messages({ ...call, extra_content: { google: { thought_signature: 'SIG' } } }),
    });
    expect(kept.body.contents[1].parts[0].thoughtSignature).toBe('SIG');
    const old = await build({ model: 'gemini-2.5-flash', messages: messages(call) });
    expect(old.body.contents[1].parts[0].thoughtSignature).toBeUndefined();
    const g3 = await build({ model: 'gemini-3-pro-preview', messages: messages(call) });
    expect(g3.body.contents[1].parts[0].thoughtSignature).toBe('skip_thought_signature_validator');
  });

  it('refuses a tool result whose call id is unknown', async () => {
    await expect(async () => build({ model: 'g', messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] })).rejects.toMatchObject(
      {
        param: 'messages[0].tool_call_id',
      },
    );
  });

  it('maps tools, tool_choice, generation settings, JSON schema and thinking', async () => {
    const { body } = await build({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Looks up',
            parameters: { type: 'object', additionalProperties: false, properties: { q: { type: 'string' } }, required: ['q'] },
          },
        },
        { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 100,
      stop: 'END',
      n: 2,
      seed: 7,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'x',
          strict: true,
          schema: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            additionalProperties: false,
            properties: { a: { type: ['string', 'null'] }, b: { const: 'k' } },
          },
        },
      },
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'lookup',
            description: 'Looks up',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          },
          { name: 'now' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] } });
    expect(body.generationConfig).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 100,
      stopSequences: ['END'],
      candidateCount: 2,
      seed: 7,
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { a: { type: 'string', nullable: true }, b: { enum: ['k'], type: 'string' } } },
      thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
    });
  });

  it('maps tool_choice modes and reasoning_effort', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    const modes = await Promise.all(
      (['auto', 'required', 'none'] as const).map(
        async (c) =>
          (await build({ model: 'g', messages: [{ role: 'user', content: 'x' }], tools, tool_choice: c })).body.toolConfig
            .functionCallingConfig.mode,
      ),
    );
    expect(modes).toEqual(['AUTO', 'ANY', 'NONE']);
    const { body } = await build({
      model: 'g',
      messages: [{ role: 'user', content: 'x' }],
      reasoning_effort: 'low',
      response_format: { type: 'json_object' },
    });
    expect(body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
  });
});

describe('google chat mapResponse', () => {
  const req: ChatCompletionRequest = { model: 'gemini-2.5-flash', messages: [] };

  it('maps text, finish reason and usage with cached and reasoning tokens', () => {
    const out = chat.mapResponse(fixture('generate-content-text.json'), req, ctx());
    expect(out).toEqual({
      id: 'chatcmpl-mVxhaPmKAp6v1dkP_8S3uAQ',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'The capital of France is Paris.', refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 29,
        total_tokens: 41,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 22 },
      },
    });
  });

  it('maps thought parts to reasoning_content', () => {
    const out = chat.mapResponse(fixture('generate-content-thinking.json'), req, ctx());
    expect(out.choices[0]!.message.content).toBe('2 + 2 = 4.');
    expect(out.choices[0]!.message.reasoning_content).toContain('Considering the question');
    expect(out.usage?.completion_tokens_details?.reasoning_tokens).toBe(100);
  });

  it('maps a function call to tool_calls with the thought signature kept', () => {
    const out = chat.mapResponse(fixture('generate-content-function-call.json'), req, ctx());
    const choice = out.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_current_weather', arguments: '{"location":"Boston, MA","unit":"celsius"}' },
        extra_content: { google: { thought_signature: 'CiQB0e2Kb7cGm8Q2Hb1xSj3W' } },
      },
    ]);
  });

  it('maps a blocked prompt to content_filter', () => {
    const out = chat.mapResponse(fixture('generate-content-blocked.json'), req, ctx());
    expect(out.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', logprobs: null },
    ]);
  });
});

describe('google mapError', () => {
  it('keeps status, message and the Google status as code', () => {
    const e = googleProvider.mapError(400, JSON.stringify(fixture('error-invalid-key.json')), {});
    expect(e).toMatchObject({
      code: 'provider_error',
      status: 400,
      message: 'API key not valid. Please pass a valid API key.',
      publicCode: 'INVALID_ARGUMENT',
      provider: 'google',
    });
    const r = googleProvider.mapError(429, JSON.stringify(fixture('error-rate-limit.json')), { 'retry-after': '17' });
    expect(r).toMatchObject({
      status: 429,
      type: 'rate_limit_error',
      publicCode: 'RESOURCE_EXHAUSTED',
      retryable: true,
      headers: { 'retry-after': '17' },
    });
    expect(googleProvider.mapError(503, 'upstream connect error', {})).toMatchObject({
      status: 503,
      message: 'upstream connect error',
      publicCode: null,
    });
    expect(
      googleProvider.mapError(500, JSON.stringify([{ error: { code: 500, message: 'Internal', status: 'INTERNAL' } }]), {}),
    ).toMatchObject({ publicCode: 'INTERNAL' });
  });
});
