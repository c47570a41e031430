import { describe, expect, it } from 'vitest';
import { verifySigV4 } from '../../../test/fakes/bedrock/verify-sigv4.js';
import type { RecordedRequest } from '../../../test/fakes/shared/fake-server.js';
import type { UpstreamCall } from '../provider.js';
import { mapBedrockFinishReason } from './map-bedrock-finish-reason.js';
import { buildConverseBody, buildConverseCall, mapConverseResponse } from './bedrock-chat.js';
import { callContext, FakeClock, TEST_CREDENTIALS } from './__fixtures__/call-context.js';
import textResponse from './__fixtures__/converse-response.json' with { type: 'json' };
import toolResponse from './__fixtures__/converse-tool-use-response.json' with { type: 'json' };
import reasoningResponse from './__fixtures__/converse-reasoning-response.json' with { type: 'json' };

const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const CREDS = { accessKeyId: TEST_CREDENTIALS.cloud1_access_key_id, secretAccessKey: TEST_CREDENTIALS.cloud1_secret_access_key };

function asRecorded(call: UpstreamCall): RecordedRequest {
  const u = new URL(call.url);
  const headers: Record<string, string> = { host: u.host };
  for (const [k, v] of Object.entries(call.headers)) headers[k.toLowerCase()] = v;
  return {
    method: call.method,
    path: u.pathname,
    query: u.searchParams,
    headers,
    rawBody: Buffer.from(call.body as string),
    body: undefined,
  };
}

describe('buildConverseBody', () => {
  it('maps sampling settings, stop sequences, tools and tool_choice', () => {
    const body = buildConverseBody(
      {
        model: MODEL,
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'hi' },
        ],
        max_tokens: 50,
        temperature: 0.3,
        top_p: 0.9,
        stop: 'END',
        tools: [
          {
            type: 'function',
            function: { name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
          },
        ],
        tool_choice: { type: 'function', function: { name: 'lookup' } },
      },
      MODEL,
    );
    expect(body.system).toEqual([{ text: 'sys' }]);
    expect(body.inferenceConfig).toEqual({ maxTokens: 50, temperature: 0.3, topP: 0.9, stopSequences: ['END'] });
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'lookup',
            description: 'Looks up',
            inputSchema: { json: { type: 'object', properties: { q: { type: 'string' } } } },
          },
        },
      ],
      toolChoice: { tool: { name: 'lookup' } },
    });
  });

  it('maps tool_choice auto/required and drops tools for none', () => {
    const tools = [{ type: 'function' as const, function: { name: 't' } }];
    const messages = [{ role: 'user' as const, content: 'hi' }];
    expect(buildConverseBody({ messages, tools, tool_choice: 'auto' }, MODEL).toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(buildConverseBody({ messages, tools, tool_choice: 'required' }, MODEL).toolConfig?.toolChoice).toEqual({ any: {} });
    expect(buildConverseBody({ messages, tools, tool_choice: 'none' }, MODEL).toolConfig).toBeUndefined();
  });

  it('sends thinking as additionalModelRequestFields for Anthropic models only', () => {
    const req = { messages: [{ role: 'user' as const, content: 'hi' }], thinking: { type: 'enabled' as const, budget_tokens: 2048 } };
    expect(buildConverseBody(req, 'us.anthropic.claude-3-7-sonnet-20250219-v1:0').additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    expect(buildConverseBody(req, 'amazon.nova-pro-v1:0').additionalModelRequestFields).toBeUndefined();
  });
});

describe('buildConverseCall', () => {
  it('targets the regional endpoint with the model id encoded and a valid SigV4 signature', async () => {
    const clock = new FakeClock(Date.UTC(2025, 4, 1, 12, 0, 0));
    const ctx = callContext({
      config: { ...TEST_CREDENTIALS, cloud1_region: 'eu-west-1' },
      clock,
      forwardHeaders: { 'x-trace': 'abc', authorization: 'nope' },
    });
    const call = await buildConverseCall({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, ctx);
    expect(call.url).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(call.headers['x-amz-date']).toBe('20250501T120000Z');
    expect(call.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKEBEDROCK00001\/20250501\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(call.headers['x-trace']).toBe('abc');
    const opts = { region: 'eu-west-1', service: 'bedrock', now: clock.now() };
    expect(await verifySigV4(asRecorded(call), CREDS, opts)).toBeUndefined();
    const tampered = { ...call, body: (call.body as string).replace('hi', 'ho') };
    expect(await verifySigV4(asRecorded(tampered), CREDS, opts)).toMatchObject({ type: 'InvalidSignatureException' });
  });

  it('uses custom_host, converse-stream when streaming, and signs the session token', async () => {
    const ctx = callContext({
      config: { ...TEST_CREDENTIALS, cloud1_session_token: 'tok-1' },
      customHost: 'http://127.0.0.1:9999',
      stream: true,
    });
    const call = await buildConverseCall({ model: 'amazon.nova-lite-v1:0', messages: [{ role: 'user', content: 'hi' }] }, ctx);
    expect(call.url).toBe('http://127.0.0.1:9999/model/amazon.nova-lite-v1%3A0/converse-stream');
    expect(call.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(call.headers['x-amz-security-token']).toBe('tok-1');
    expect(call.headers.authorization).toContain('x-amz-security-token');
    expect(call.headers.authorization).toContain('/us-east-1/bedrock/aws4_request');
    expect(
      await verifySigV4(asRecorded(call), { ...CREDS, sessionToken: 'tok-1' }, { region: 'us-east-1', service: 'bedrock' }),
    ).toBeUndefined();
  });

  it('refuses missing credentials and a missing model with 400', async () => {
    const noSecret = callContext({ config: { cloud1_access_key_id: 'AKID' } });
    await expect(buildConverseCall({ model: MODEL, messages: [{ role: 'user', content: 'x' }] }, noSecret)).rejects.toMatchObject({
      status: 400,
      param: 'cloud1_secret_access_key',
    });
    await expect(buildConverseCall({ messages: [{ role: 'user', content: 'x' }] }, callContext())).rejects.toMatchObject({
      status: 400,
      param: 'model',
    });
  });

  it('uses an api_key as a Bedrock API key (Bearer) when no access keys are set', async () => {
    const call = await buildConverseCall(
      { model: MODEL, messages: [{ role: 'user', content: 'x' }] },
      callContext({ config: {}, apiKey: 'bedrock-api-key' }),
    );
    expect(call.headers.authorization).toBe('Bearer bedrock-api-key');
  });
});

describe('mapConverseResponse', () => {
  const req = { model: MODEL, messages: [{ role: 'user' as const, content: 'hi' }] };

  it('maps text, finish reason and usage with cached tokens', () => {
    const out = mapConverseResponse(textResponse, req, callContext());
    expect(out.object).toBe('chat.completion');
    expect(out.id).toMatch(/^chatcmpl-/);
    expect(out.model).toBe(MODEL);
    expect(out.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Here is a song about the sea.', refusal: null },
      finish_reason: 'stop',
      logprobs: null,
    });
    expect(out.usage).toEqual({
      prompt_tokens: 275,
      completion_tokens: 60,
      total_tokens: 335,
      prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 50 },
    });
  });

  it('maps toolUse blocks to tool_calls', () => {
    const out = mapConverseResponse(toolResponse, req, callContext());
    expect(out.choices[0]!.finish_reason).toBe('tool_calls');
    expect(out.choices[0]!.message.content).toBe("I'll look up the most popular song on WZPZ.");
    expect(out.choices[0]!.message.tool_calls).toEqual([
      { id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', type: 'function', function: { name: 'top_song', arguments: '{"sign":"WZPZ"}' } },
    ]);
  });

  it('maps reasoningContent to reasoning_content and content_blocks', () => {
    const out = mapConverseResponse(reasoningResponse, req, callContext());
    const msg = out.choices[0]!.message;
    expect(msg.content).toBe('2 + 2 = 4');
    expect(msg.reasoning_content).toBe('The user asks for 2+2. That is 4.');
    expect(msg.content_blocks).toEqual([
      { type: 'thinking', thinking: 'The user asks for 2+2. That is 4.', signature: 'EqoBCkgIARABGAIiQL2m' },
      { type: 'text', text: '2 + 2 = 4' },
    ]);
  });

  it('maps stop reasons', () => {
    expect(
      ['end_turn', 'stop_sequence', 'max_tokens', 'tool_use', 'guardrail_intervened', 'content_filtered'].map(mapBedrockFinishReason),
    ).toEqual(['stop', 'stop', 'length', 'tool_calls', 'content_filter', 'content_filter']);
  });
});
