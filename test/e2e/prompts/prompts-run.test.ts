import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import type { Stream } from 'openai/core/streaming';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let gw: TestGateway;
let fake: FakeOpenAI;
let other: FakeOpenAI;
let promptId: string;
let slug: string;

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await gw.fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Json };
}

const TEMPLATE = JSON.stringify([
  { role: 'system', content: 'You are {{persona}}.{{#rules}} Rule: {{.}}.{{/rules}}\n{{> sign-off}}' },
  { role: 'user', content: '{{question}}' },
]);
const VARIABLES = { persona: 'a "helpful" <pirate>', rules: ['be brief', 'be kind'], question: 'where is the treasure', agent: 'Ann' };

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-saved' });
  other = await startFakeOpenAI({ apiKey: 'sk-request' });
  gw = await startGateway();
  expect(
    (
      await call('POST', '/v1/virtual-keys', {
        name: 'saved',
        slug: 'saved-openai',
        provider: 'openai',
        key: 'sk-saved',
        config: { custom_host: fake.url },
      })
    ).status,
  ).toBe(201);
  expect((await call('POST', '/v1/prompts/partials', { name: 'sign-off', string: '(signed {{agent}})' })).status).toBe(201);
  const created = await call('POST', '/v1/prompts', {
    name: 'pirate',
    string: TEMPLATE,
    model: 'gpt-4o-mini',
    parameters: { temperature: 0.2, max_tokens: 50, top_p: 0.9 },
    virtual_key: 'saved-openai',
  });
  expect(created.status).toBe(201);
  promptId = created.body.id;
  slug = created.body.slug;
  expect((await call('PUT', `/v1/prompts/${promptId}`, { patch: true, string: 'Latest: {{question}}' })).body.version).toBe(2);
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
  await other?.close();
});
beforeEach(() => {
  fake.reset();
  other.reset();
});

describe('POST /v1/prompts/{promptId}/render', () => {
  it('renders the published version: messages, model, saved parameters overridden by root hyperparameters', async () => {
    const res = await call('POST', `/v1/prompts/${promptId}/render`, { variables: VARIABLES, temperature: 0.7, max_tokens: 20, seed: 7 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        messages: [
          { role: 'system', content: 'You are a "helpful" <pirate>. Rule: be brief. Rule: be kind.\n(signed Ann)' },
          { role: 'user', content: 'where is the treasure' },
        ],
        model: 'gpt-4o-mini',
        temperature: 0.7,
        max_completion_tokens: 20,
        top_p: 0.9,
        seed: 7,
      },
    });
  });

  it('maps a saved max_tokens to max_completion_tokens; a root max_completion_tokens wins over a root max_tokens', async () => {
    const saved = await call('POST', `/v1/prompts/${slug}/render`, { variables: VARIABLES });
    expect(saved.body.data).toMatchObject({ max_completion_tokens: 50, temperature: 0.2 });
    expect(saved.body.data).not.toHaveProperty('max_tokens');
    const both = await call('POST', `/v1/prompts/${slug}/render`, {
      variables: VARIABLES,
      max_tokens: 5,
      max_completion_tokens: 9,
      model: 'gpt-4o',
    });
    expect(both.body.data).toMatchObject({ max_completion_tokens: 9, model: 'gpt-4o' });
  });

  it('selects versions: @latest, @1, slug; unknown versions and prompts are 404', async () => {
    expect((await call('POST', `/v1/prompts/${promptId}@latest/render`, { variables: { question: 'q?' } })).body.data.messages).toEqual([
      { role: 'user', content: 'Latest: q?' },
    ]);
    expect((await call('POST', `/v1/prompts/${slug}@1/render`, { variables: VARIABLES })).body.data.messages[1].content).toBe(
      'where is the treasure',
    );
    const noVersion = await call('POST', `/v1/prompts/${promptId}@3/render`, { variables: {} });
    expect([noVersion.status, noVersion.body.error.code]).toEqual([404, 'not_found']);
    const noPrompt = await call('POST', '/v1/prompts/no-such-prompt/render', { variables: {} });
    expect([noPrompt.status, noPrompt.body.error.code]).toEqual([404, 'not_found']);
    const badSuffix = await call('POST', `/v1/prompts/${promptId}@v2/render`, { variables: {} });
    expect([badSuffix.status, badSuffix.body.error.param]).toEqual([400, 'promptId']);
  });

  it('uses the newly published partial version at once; a pinned {{> slug@1}} keeps version 1', async () => {
    await call('PUT', '/v1/prompts/partials/sign-off', { string: '(yours, {{agent}})' });
    const pinned = await call('POST', '/v1/prompts', { name: 'pinned', string: '{{> sign-off@1}} / {{> sign-off@latest}}' });
    const before = await call('POST', `/v1/prompts/${pinned.body.id}/render`, { variables: { agent: 'Bo' } });
    expect(before.body.data.messages[0].content).toBe('(signed Bo) / (yours, Bo)');
    await call('PUT', '/v1/prompts/partials/sign-off/makeDefault', { version: 2 });
    const after = await call('POST', `/v1/prompts/${promptId}/render`, { variables: VARIABLES });
    expect(after.body.data.messages[0].content).toContain('(yours, Ann)');
    await call('PUT', '/v1/prompts/partials/sign-off/makeDefault', { version: 1 });
    expect((await call('POST', `/v1/prompts/${promptId}/render`, { variables: VARIABLES })).body.data.messages[0].content).toContain(
      '(signed Ann)',
    );
  });

  it('rejects bad input with the error shape', async () => {
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ temperature: 1 }, 400, 'body.variables', /variables/],
      [{ variables: { persona: 'x', agent: 'y' } }, 400, 'variables.question', /Missing prompt variable: question/],
      [{ variables: {} }, 400, 'variables.persona', /Missing prompt variables: persona, agent, question\./],
      [
        { variables: VARIABLES, hyperparameters: { temperature: 1 } },
        400,
        'body.hyperparameters',
        /not a chat-completion parameter.*root of the body/,
      ],
      [{ variables: VARIABLES, parameters: { temperature: 1 } }, 400, 'body.parameters', /not a chat-completion parameter/],
      [{ variables: VARIABLES, messages: [{ role: 'user', content: 'x' }] }, 400, 'body.messages', /template supplies the messages/],
      [{ variables: VARIABLES, temperature: 3 }, 400, 'body.temperature', /must be/],
      [{ variables: 'x' }, 400, 'body.variables', /object/],
      [{ variables: VARIABLES, toString: 1 }, 400, 'body.toString', /not a chat-completion parameter/],
    ];
    for (const [body, status, param, message] of cases) {
      const res = await call('POST', `/v1/prompts/${promptId}/render`, body);
      expect([res.status, res.body.error?.param], JSON.stringify(body)).toEqual([status, param]);
      expect(res.body.error.message).toMatch(message);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });
});

describe('POST /v1/prompts/{promptId}/completions', () => {
  it('sends exactly the rendered prompt to the provider of the saved virtual key and answers {status, headers, body}', async () => {
    const body = { variables: VARIABLES, temperature: 0.5, max_tokens: 30 };
    const rendered = (await call('POST', `/v1/prompts/${promptId}/render`, body)).body.data;
    const res = await call('POST', `/v1/prompts/${promptId}/completions`, body);
    expect(res.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
    expect(fake.lastRequest!.body).toEqual(rendered);
    expect(fake.lastRequest!.headers.authorization).toBe('Bearer sk-saved');
    expect(res.body.status).toBe('200');
    expect(res.body.headers).toMatchObject({
      'x-gateway-provider': 'openai',
      'x-gateway-cache-status': 'DISABLED',
      'x-gateway-retry-attempt-count': '0',
    });
    expect(res.body.headers['x-gateway-request-id']).toBeTruthy();
    expect(res.body.body).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'echo: where is the treasure' } }],
    });
    expect(res.body.body.usage.total_tokens).toBeGreaterThan(0);
  });

  it("prefers the request's own provider headers over the saved credential", async () => {
    const res = await call(
      'POST',
      `/v1/prompts/${promptId}/completions`,
      { variables: VARIABLES },
      { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-request', 'x-gateway-custom-host': other.url },
    );
    expect(res.status).toBe(200);
    expect(fake.requests).toHaveLength(0);
    expect(other.lastRequest!.headers.authorization).toBe('Bearer sk-request');
  });

  it('runs through the config: the cache answers the second identical run', async () => {
    const headers = { 'x-gateway-config': JSON.stringify({ cache: { mode: 'simple' } }) };
    const body = { variables: { ...VARIABLES, question: 'cache me' } };
    const first = await call('POST', `/v1/prompts/${promptId}/completions`, body, headers);
    // The cache stores answers off the response path (on PostgreSQL that is a write to the database).
    await new Promise((r) => setTimeout(r, 300));
    const second = await call('POST', `/v1/prompts/${promptId}/completions`, body, headers);
    expect(first.body.headers['x-gateway-cache-status']).toBe('MISS');
    expect(second.body.headers['x-gateway-cache-status']).toBe('HIT');
    expect(second.body.body.choices[0].message.content).toBe('echo: cache me');
    expect(fake.requests).toHaveLength(1);
  });

  it('runs guardrails on the rendered text: deny is 446 before the provider, a soft failure is status "246" with hook_results', async () => {
    const check = { 'default.contains': { operator: 'none', words: ['treasure'] } };
    const denied = await call(
      'POST',
      `/v1/prompts/${promptId}/completions`,
      { variables: VARIABLES },
      { 'x-gateway-config': JSON.stringify({ input_guardrails: [{ ...check, deny: true }] }) },
    );
    expect([denied.status, denied.body.error?.code]).toEqual([446, 'guardrail_denied']);
    expect(fake.requests).toHaveLength(0);
    const soft = await call(
      'POST',
      `/v1/prompts/${promptId}/completions`,
      { variables: VARIABLES },
      { 'x-gateway-config': JSON.stringify({ input_guardrails: [check] }) },
    );
    expect(soft.status).toBe(246);
    expect(soft.body.status).toBe('246');
    expect(soft.body.body.choices[0].message.content).toBe('echo: where is the treasure');
    expect(soft.body.body.hook_results).toBeDefined();
    const passed = await call(
      'POST',
      `/v1/prompts/${promptId}/completions`,
      { variables: { ...VARIABLES, question: 'where is the gold' } },
      { 'x-gateway-config': JSON.stringify({ input_guardrails: [{ ...check, deny: true }] }) },
    );
    expect(passed.body.status).toBe('200');
  });

  it('streams chat chunks that the openai SDK parses, and logs the prompt id', async () => {
    const client = gw.openai();
    const stream = (await client.post<unknown>(`/prompts/${slug}/completions`, {
      body: { variables: VARIABLES, stream: true, stream_options: { include_usage: true } },
      stream: true,
    })) as unknown as Stream<OpenAI.ChatCompletionChunk>;
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: where is the treasure');
    expect(usage?.total_tokens).toBeGreaterThan(0);
    expect(fake.lastRequest!.body).toMatchObject({ stream: true, model: 'gpt-4o-mini', temperature: 0.2 });
    const logs = await call('GET', '/v1/logs?page_size=100');
    const streamed = logs.body.data.filter((l: Json) => l.prompt_id === promptId && l.stream === true);
    expect(streamed.length).toBeGreaterThan(0);
  });

  it('checks variables and keys before calling any provider', async () => {
    const res = await call('POST', `/v1/prompts/${promptId}/completions`, { variables: { persona: 'x' } });
    expect([res.status, res.body.error.param, res.body.error.message]).toEqual([
      400,
      'variables.agent',
      'Missing prompt variables: agent, question.',
    ]);
    const nested = await call('POST', `/v1/prompts/${promptId}/completions`, { variables: VARIABLES, hyperparameters: { temperature: 1 } });
    expect([nested.status, nested.body.error.param]).toEqual([400, 'body.hyperparameters']);
    expect((await call('POST', '/v1/prompts/unknown/completions', { variables: {} })).status).toBe(404);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('config prompt_id', () => {
  it('runs the prompt for chat completions: body variables fill it, its messages replace the body messages', async () => {
    const client = gw.openai({ 'x-gateway-config': JSON.stringify({ prompt_id: `${slug}@1` }) });
    const res = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'replaced' }],
      temperature: 1,
      variables: VARIABLES,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(res.choices[0]!.message.content).toBe('echo: where is the treasure');
    const sent = fake.lastRequest!.body;
    expect(sent.messages[0].content).toContain('You are a "helpful" <pirate>.');
    expect(sent).toMatchObject({ model: 'gpt-4o', temperature: 1, max_completion_tokens: 50, top_p: 0.9 });
    expect(sent).not.toHaveProperty('variables');
    expect(fake.lastRequest!.headers.authorization).toBe('Bearer sk-saved');
  });

  it('streams and reports a missing variable as 400', async () => {
    const client = gw.openai({ 'x-gateway-config': JSON.stringify({ prompt_id: promptId }) });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
      variables: VARIABLES,
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('echo: where is the treasure');
    const err = await client.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
        variables: { persona: 'p' },
      } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, error: { param: 'variables.agent', message: 'Missing prompt variables: agent, question.' } });
  });
});
