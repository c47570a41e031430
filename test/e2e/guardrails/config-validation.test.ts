import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { chat, fakeConfig } from './helpers.js';

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

const cases: Array<[string, Record<string, unknown>, string]> = [
  [
    'a missing check parameter',
    { input_guardrails: [{ 'default.contains': { operator: 'none' } }] },
    'config.input_guardrails[0]["default.contains"].words',
  ],
  [
    'a bad enum value',
    { input_guardrails: [{ 'default.contains': { operator: 'some', words: ['a'] } }] },
    'config.input_guardrails[0]["default.contains"].operator',
  ],
  ['an unknown check id', { output_guardrails: [{ 'default.nope': {}, deny: true }] }, 'config.output_guardrails[0]["default.nope"]'],
  ['an after-only check in input', { input_guardrails: [{ 'default.notNull': {} }] }, 'config.input_guardrails[0]["default.notNull"]'],
  [
    'a before-only check in output',
    { output_guardrails: [{ 'default.requiredMetadataKeyPairs': { metadataPairs: { a: 'b' } } }] },
    'config.output_guardrails[0]["default.requiredMetadataKeyPairs"]',
  ],
  ['an object with no check and no id', { input_guardrails: [{ deny: true }] }, 'config.input_guardrails[0]'],
  [
    'a hook check with bad parameters',
    { before_request_hooks: [{ id: 'h', checks: [{ id: 'default.wordCount', parameters: { maxWords: 'ten' } }] }] },
    'config.before_request_hooks[0].checks[0].parameters.maxWords',
  ],
  [
    'a hook with an unknown check',
    { after_request_hooks: [{ id: 'h', checks: [{ id: 'default.x', parameters: {} }] }] },
    'config.after_request_hooks[0].checks[0].id',
  ],
  ['a hook with an empty checks list', { before_request_hooks: [{ id: 'h', checks: [] }] }, 'config.before_request_hooks[0].checks'],
  [
    'a webhook with a bad URL',
    { input_guardrails: [{ 'default.webhook': { webhookURL: 'ftp://x' } }] },
    'config.input_guardrails[0]["default.webhook"].webhookURL',
  ],
];

describe('guardrail configs are validated when the config is', () => {
  it.each(cases)('%s → 400 invalid_config naming the path', async (_name, extra, path) => {
    const res = await chat(gw, fakeConfig(fake, extra), 'hi');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_config');
    expect(res.body.error.param).toBe(path);
    expect(res.body.error.message).toContain(path);
  });

  it('nested targets are validated with their path', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      targets: [fakeConfig(fake), fakeConfig(fake, { output_guardrails: [{ 'default.regexMatch': { rule: '(' } }] })],
    };
    const res = await chat(gw, config, 'hi');
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('config.targets[1].output_guardrails[0]["default.regexMatch"].rule');
  });

  it('stored configs are refused at write time', async () => {
    const res = await gw.fetch('/v1/configs', {
      method: 'POST',
      body: JSON.stringify({
        name: 'bad',
        config: fakeConfig(fake, { input_guardrails: [{ 'default.wordCount': { minWords: 5, maxWords: 1 } }] }),
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ code: 'invalid_config', param: 'config.input_guardrails[0]["default.wordCount"].maxWords' });
  });

  it('a guardrail item value that is not an object is refused by the schema', async () => {
    const res = await chat(gw, fakeConfig(fake, { input_guardrails: [{ 'default.contains': 'secret' }] }), 'hi');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_config');
  });
});
