import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { chat, configHeader, fakeConfig, sseFrames, streamedText } from './helpers.js';

let gw: TestGateway;
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-good' });
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const noSecret = (deny: boolean) => ({ 'default.contains': { operator: 'none', words: ['secret'] }, deny });
const noEcho = (deny: boolean) => ({ 'default.contains': { operator: 'none', words: ['echo'] }, deny });

describe('input guardrails', () => {
  it('deny: 446 guardrail_denied with hook_results, the provider is never called', async () => {
    const res = await chat(gw, fakeConfig(fake, { input_guardrails: [noSecret(true)] }), 'tell me the secret');
    expect(res.status).toBe(446);
    expect(res.body.error).toMatchObject({ code: 'guardrail_denied', type: 'guardrail_error' });
    const [hook] = res.body.hook_results.before_request_hooks;
    expect(hook).toMatchObject({ id: 'config.input_guardrails[0]', verdict: false, deny: true });
    expect(hook.checks[0]).toMatchObject({ id: 'default.contains', verdict: false });
    expect(res.body.hook_results.after_request_hooks).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('deny through the openai SDK throws an APIError with status 446', async () => {
    const client = gw.openai(configHeader(fakeConfig(fake, { input_guardrails: [noSecret(true)] })));
    const err = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a secret' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(446);
    expect(err.code).toBe('guardrail_denied');
    expect(fake.requests).toHaveLength(0);
  });

  it('failed without deny: the answer with status 246 and hook_results', async () => {
    const client = gw.openai(configHeader(fakeConfig(fake, { input_guardrails: [noSecret(false)] })));
    const res = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a secret' }] }).withResponse();
    expect(res.response.status).toBe(246);
    expect(res.data.choices[0]!.message.content).toBe('echo: a secret');
    const hr = (res.data as unknown as { hook_results: any }).hook_results;
    expect(hr.before_request_hooks[0]).toMatchObject({ verdict: false, deny: false });
    expect(fake.requests).toHaveLength(1);
  });

  it('passing: status 200 with hook_results', async () => {
    const res = await chat(gw, fakeConfig(fake, { input_guardrails: [noSecret(true)] }), 'hello');
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe('echo: hello');
    expect(res.body.hook_results.before_request_hooks[0]).toMatchObject({ verdict: true, deny: false });
  });

  it('streamed, deny: 446 before any byte and no provider call', async () => {
    const client = gw.openai(configHeader(fakeConfig(fake, { input_guardrails: [noSecret(true)] })));
    const err = await client.chat.completions
      .create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'secret' }] })
      .catch((e) => e);
    expect(err.status).toBe(446);
    expect(fake.requests).toHaveLength(0);
  });

  it('streamed, failed without deny: the stream with status 246', async () => {
    const res = await chat(gw, fakeConfig(fake, { input_guardrails: [noSecret(false)] }), 'secret plan', { stream: true });
    expect(res.status).toBe(246);
    expect(streamedText(res.text)).toBe('echo: secret plan');
    expect(sseFrames(res.text).at(-1)).toBe('[DONE]');
  });
});

describe('output guardrails', () => {
  it('deny: 446 with hook_results, the answer is withheld', async () => {
    const res = await chat(gw, fakeConfig(fake, { output_guardrails: [noEcho(true)] }), 'hello');
    expect(res.status).toBe(446);
    expect(res.text).not.toContain('echo: hello');
    expect(res.body.hook_results.after_request_hooks[0]).toMatchObject({ verdict: false, deny: true });
    expect(fake.requests).toHaveLength(1);
  });

  it('failed without deny: 246 with the answer and after_request_hooks results', async () => {
    const client = gw.openai(configHeader(fakeConfig(fake, { output_guardrails: [noEcho(false)] })));
    const res = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(res.response.status).toBe(246);
    expect(res.data.choices[0]!.message.content).toBe('echo: hi');
    expect((res.data as any).hook_results.after_request_hooks[0]).toMatchObject({ verdict: false, deny: false });
  });

  it('streamed, deny: chunks, then an error frame with hook_results instead of [DONE]', async () => {
    const res = await chat(gw, fakeConfig(fake, { output_guardrails: [noEcho(true)] }), 'stream me', { stream: true });
    expect(res.status).toBe(200);
    const frames = sseFrames(res.text);
    expect(frames).not.toContain('[DONE]');
    const last = JSON.parse(frames.at(-1)!);
    expect(last.error.code).toBe('guardrail_denied');
    expect(last.hook_results.after_request_hooks[0]).toMatchObject({ verdict: false, deny: true });
  });

  it('streamed, deny: the openai SDK throws while iterating', async () => {
    const client = gw.openai(configHeader(fakeConfig(fake, { output_guardrails: [noEcho(true)] })));
    const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] });
    const err = await (async () => {
      for await (const _ of stream) void _;
    })().catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err.message)).toContain('denied');
  });

  it('streamed, failed without deny: the whole stream and [DONE]; results go to the request log', async () => {
    const res = await chat(
      gw,
      fakeConfig(fake, { output_guardrails: [{ ...noEcho(false), on_fail: { feedback: { value: -1, weight: 2 } } }] }),
      'logged',
      { stream: true },
    );
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe('echo: logged');
    expect(sseFrames(res.text).at(-1)).toBe('[DONE]');
    const traceId = res.headers.get('x-gateway-trace-id')!;
    const logs = (await (await gw.fetch(`/v1/logs?trace_id=${traceId}`)).json()) as any;
    const hook = logs.data[0].hook_results.after_request_hooks[0];
    expect(hook).toMatchObject({ verdict: false, feedback: { value: -1, weight: 2 } });
  });

  it('streamed, passing: the stream is untouched', async () => {
    const res = await chat(gw, fakeConfig(fake, { output_guardrails: [noSecret(true)] }), 'fine', { stream: true });
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe('echo: fine');
    expect(sseFrames(res.text).at(-1)).toBe('[DONE]');
  });
});

describe('hook objects', () => {
  const hook = (deny: boolean) => ({
    id: 'policy',
    type: 'guardrail',
    checks: [{ id: 'default.requiredMetadataKeys', parameters: { metadataKeys: ['team'] } }],
    on_fail: { deny, feedback: { value: -5, weight: 1, metadata: { why: 'no team' } } },
    on_success: { feedback: { value: 1, weight: 1 } },
  });

  it('before_request_hooks: on_fail.deny answers 446', async () => {
    const res = await chat(gw, fakeConfig(fake, { before_request_hooks: [hook(true)] }), 'hi');
    expect(res.status).toBe(446);
    expect(res.body.hook_results.before_request_hooks[0]).toMatchObject({
      id: 'policy',
      verdict: false,
      deny: true,
      feedback: { value: -5 },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('before_request_hooks: a pass records on_success feedback (answer and request log)', async () => {
    const res = await chat(gw, fakeConfig(fake, { before_request_hooks: [hook(true)] }), 'hi', { metadata: { team: 'core' } });
    expect(res.status).toBe(200);
    expect(res.body.hook_results.before_request_hooks[0]).toMatchObject({ verdict: true, feedback: { value: 1, weight: 1 } });
    const logs = (await (await gw.fetch(`/v1/logs?trace_id=${res.headers.get('x-gateway-trace-id')}`)).json()) as any;
    expect(logs.data[0].hook_results.before_request_hooks[0].feedback).toEqual({ value: 1, weight: 1 });
  });

  it('after_request_hooks: on_fail.deny withholds the answer', async () => {
    const after = { id: 'words', checks: [{ id: 'default.wordCount', parameters: { maxWords: 2 } }], on_fail: { deny: true } };
    const res = await chat(gw, fakeConfig(fake, { after_request_hooks: [after] }), 'one two three four');
    expect(res.status).toBe(446);
    expect(res.body.hook_results.after_request_hooks[0]).toMatchObject({ id: 'words', verdict: false, deny: true });
  });
});

describe('PII redaction as a mutator', () => {
  it('rewrites the request before the provider sees it (status 246, transformed)', async () => {
    const res = await chat(
      gw,
      fakeConfig(fake, { input_guardrails: [{ 'default.pii': { redact: true, categories: ['EMAIL_ADDRESS'] } }] }),
      'mail jane@example.com now',
    );
    expect(fake.lastRequest!.body.messages[0].content).toBe('mail [EMAIL_ADDRESS_1] now');
    expect(res.status).toBe(246);
    expect(res.body.choices[0].message.content).toBe('echo: mail [EMAIL_ADDRESS_1] now');
    expect(res.body.hook_results.before_request_hooks[0]).toMatchObject({ transformed: true, verdict: false });
    expect(JSON.stringify(res.body.hook_results)).not.toContain('jane@example.com');
  });

  it('rewrites the answer after the provider answered', async () => {
    const res = await chat(
      gw,
      fakeConfig(fake, { output_guardrails: [{ 'default.pii': { redact: true } }] }),
      'call +1 415 555 0100 or bob@example.org',
    );
    expect(fake.lastRequest!.body.messages[0].content).toContain('bob@example.org');
    expect(res.body.choices[0].message.content).not.toContain('bob@example.org');
    expect(res.body.choices[0].message.content).toContain('[EMAIL_ADDRESS_1]');
    expect(res.body.hook_results.after_request_hooks[0].transformed).toBe(true);
  });

  it('later checks see the redacted text', async () => {
    const res = await chat(
      gw,
      fakeConfig(fake, {
        input_guardrails: [
          { 'default.pii': { redact: true } },
          { 'default.contains': { operator: 'none', words: ['jane@example.com'] }, deny: true },
        ],
      }),
      'jane@example.com',
    );
    expect(res.status).toBe(246);
  });
});

describe('where guardrails run in a strategy', () => {
  it('a target denied by its own guardrail is skipped by a fallback parent', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [
        fakeConfig(fake, { input_guardrails: [{ 'default.modelWhitelist': { models: ['other-model'] }, deny: true }] }),
        fakeConfig(fake),
      ],
    };
    const res = await chat(gw, config, 'hi');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(fake.requests).toHaveLength(1);
    expect(res.body.hook_results).toBeUndefined();
    const logs = (await (await gw.fetch(`/v1/logs?trace_id=${res.headers.get('x-gateway-trace-id')}`)).json()) as any;
    expect(logs.data[0]).toMatchObject({ status: 200, hook_results: null });
  });

  it('with on_status_codes leaving 446 out, a target denial ends the request', async () => {
    const config = {
      strategy: { mode: 'fallback', on_status_codes: [429] },
      targets: [fakeConfig(fake, { output_guardrails: [noEcho(true)] }), fakeConfig(fake)],
    };
    const res = await chat(gw, config, 'hi');
    expect(res.status).toBe(446);
    expect(fake.requests).toHaveLength(1);
  });

  it('root guardrails run once, before routing, and their results reach the answer of any target', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      input_guardrails: [noSecret(false)],
      output_guardrails: [noSecret(false)],
      targets: [
        fakeConfig(fake, { api_key: 'sk-wrong' }),
        fakeConfig(fake, { output_guardrails: [{ 'default.endsWith': { suffix: 'hi' } }] }),
      ],
    };
    const res = await chat(gw, config, 'hi');
    expect(res.status).toBe(200);
    expect(res.body.hook_results.before_request_hooks).toHaveLength(1);
    expect(res.body.hook_results.after_request_hooks.map((h: any) => h.path)).toEqual([
      'config.output_guardrails[0]',
      'config.targets[1].output_guardrails[0]',
    ]);
  });
});
