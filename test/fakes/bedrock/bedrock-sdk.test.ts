import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { FAKE_AWS_CREDENTIALS, bedrockFault, startFakeBedrock, type FakeBedrock } from './server.js';

const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';

function client(
  fake: FakeBedrock,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = FAKE_AWS_CREDENTIALS,
): BedrockRuntimeClient {
  // The SDK defaults to HTTP/2 for Bedrock Runtime; the fake (like every fake here) serves HTTP/1.1,
  // which Bedrock Runtime also accepts for these operations.
  return new BedrockRuntimeClient({
    endpoint: fake.url,
    region: 'us-east-1',
    credentials,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
}

describe('Bedrock fake, proven with @aws-sdk/client-bedrock-runtime', () => {
  let fake: FakeBedrock;
  let sessionFake: FakeBedrock;
  beforeAll(async () => {
    fake = await startFakeBedrock();
    sessionFake = await startFakeBedrock({ credentials: { ...FAKE_AWS_CREDENTIALS, sessionToken: 'session-token-123' } });
  });
  afterAll(async () => {
    await fake.close();
    await sessionFake.close();
  });
  beforeEach(() => fake.reset());

  it('answers Converse with a signed request the SDK parses', async () => {
    const out = await client(fake).send(
      new ConverseCommand({
        modelId: MODEL,
        system: [{ text: 'Be brief.' }],
        messages: [{ role: 'user', content: [{ text: 'hello there' }] }],
        inferenceConfig: { maxTokens: 100, temperature: 0.2 },
      }),
    );
    expect(out.output?.message?.role).toBe('assistant');
    expect(out.output?.message?.content?.[0]?.text).toBe('echo: hello there');
    expect(out.stopReason).toBe('end_turn');
    expect(out.usage?.inputTokens).toBeGreaterThan(0);
    expect(out.usage?.totalTokens).toBe((out.usage?.inputTokens ?? 0) + (out.usage?.outputTokens ?? 0));
    const seen = fake.lastRequest!;
    expect(seen.path).toBe('/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse');
    expect(String(seen.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKEBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
    expect(seen.body.system).toEqual([{ text: 'Be brief.' }]);
  });

  it('streams ConverseStream events the SDK decodes from binary frames', async () => {
    const out = await client(fake).send(
      new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'stream me please' }] }] }),
    );
    const events: ConverseStreamOutput[] = [];
    for await (const ev of out.stream!) events.push(ev);
    expect(events[0]?.messageStart?.role).toBe('assistant');
    const text = events.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('');
    expect(text).toBe('echo: stream me please');
    expect(events.find((e) => e.messageStop)?.messageStop?.stopReason).toBe('end_turn');
    expect(events[events.length - 1]?.metadata?.usage?.outputTokens).toBeGreaterThan(0);
  });

  it('answers a tool call and then the tool result', async () => {
    const toolConfig = {
      tools: [
        {
          toolSpec: {
            name: 'lookup',
            description: 'Looks up',
            inputSchema: { json: { type: 'object', properties: { query: { type: 'string' } } } },
          },
        },
      ],
    };
    const c = client(fake);
    const first = await c.send(
      new ConverseCommand({ modelId: MODEL, toolConfig, messages: [{ role: 'user', content: [{ text: 'weather in Oslo' }] }] }),
    );
    expect(first.stopReason).toBe('tool_use');
    const toolUse = first.output?.message?.content?.find((b) => b.toolUse)?.toolUse;
    expect(toolUse?.name).toBe('lookup');
    expect(toolUse?.input).toEqual({ query: 'weather in Oslo' });
    const second = await c.send(
      new ConverseCommand({
        modelId: MODEL,
        toolConfig,
        messages: [
          { role: 'user', content: [{ text: 'weather in Oslo' }] },
          { role: 'assistant', content: [{ toolUse: toolUse! }] },
          { role: 'user', content: [{ toolResult: { toolUseId: toolUse!.toolUseId!, content: [{ text: 'sunny' }] } }] },
        ],
      }),
    );
    expect(second.output?.message?.content?.[0]?.text).toBe('tool said: sunny');
    expect(second.stopReason).toBe('end_turn');
  });

  it('streams a tool call as contentBlockStart + toolUse input deltas', async () => {
    const toolConfig = { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object' } } } }] };
    const out = await client(fake).send(
      new ConverseStreamCommand({ modelId: MODEL, toolConfig, messages: [{ role: 'user', content: [{ text: 'find it' }] }] }),
    );
    const events: ConverseStreamOutput[] = [];
    for await (const ev of out.stream!) events.push(ev);
    expect(events.find((e) => e.contentBlockStart)?.contentBlockStart?.start?.toolUse?.name).toBe('lookup');
    const args = events.map((e) => e.contentBlockDelta?.delta?.toolUse?.input ?? '').join('');
    expect(JSON.parse(args)).toEqual({ query: 'find it' });
  });

  it('serves InvokeModel for Titan and Cohere embeddings', async () => {
    const c = client(fake);
    const titan = await c.send(
      new InvokeModelCommand({
        modelId: 'amazon.titan-embed-text-v2:0',
        contentType: 'application/json',
        accept: 'application/json',
        body: JSON.stringify({ inputText: 'hi', dimensions: 256 }),
      }),
    );
    const parsed = JSON.parse(new TextDecoder().decode(titan.body));
    expect(parsed.embedding).toHaveLength(256);
    expect(parsed.inputTextTokenCount).toBe(1);
    const cohere = await c.send(
      new InvokeModelCommand({
        modelId: 'cohere.embed-english-v3',
        body: JSON.stringify({ texts: ['a', 'b'], input_type: 'search_document' }),
      }),
    );
    expect(JSON.parse(new TextDecoder().decode(cohere.body)).embeddings).toHaveLength(2);
  });

  it('rejects a wrong secret with InvalidSignatureException and an unknown key with UnrecognizedClientException', async () => {
    const bad = client(fake, { ...FAKE_AWS_CREDENTIALS, secretAccessKey: 'wrong-secret' });
    const err = await bad
      .send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'x' }] }] }))
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe('InvalidSignatureException');
    expect((err as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(403);
    const unknown = client(fake, { accessKeyId: 'AKIDUNKNOWN', secretAccessKey: 'x' });
    const err2 = await unknown
      .send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'x' }] }] }))
      .catch((e: unknown) => e);
    expect((err2 as Error).name).toBe('UnrecognizedClientException');
  });

  it('checks the session token when the credentials have one', async () => {
    const ok = client(sessionFake, { ...FAKE_AWS_CREDENTIALS, sessionToken: 'session-token-123' });
    const out = await ok.send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'tok' }] }] }));
    expect(out.output?.message?.content?.[0]?.text).toBe('echo: tok');
    expect(sessionFake.lastRequest!.headers['x-amz-security-token']).toBe('session-token-123');
    const err = await client(sessionFake)
      .send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'tok' }] }] }))
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe('UnrecognizedClientException');
  });

  it('answers validation and injected errors with the Bedrock error shape', async () => {
    const c = client(fake);
    const invalid = await c
      .send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'assistant', content: [{ text: 'x' }] }] }))
      .catch((e: unknown) => e);
    expect((invalid as Error).name).toBe('ValidationException');
    expect((invalid as Error).message).toMatch(/must start with a user message/);
    fake.fail(bedrockFault(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'));
    const throttled = await c
      .send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'x' }] }] }))
      .catch((e: unknown) => e);
    expect((throttled as Error).name).toBe('ThrottlingException');
    expect((throttled as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(429);
  });

  it('emits an exception event mid-stream that the SDK throws', async () => {
    fake.failStream({ afterEvents: 2, exceptionType: 'modelStreamErrorException', message: 'The model stream failed.' });
    const out = await client(fake).send(
      new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'one two three' }] }] }),
    );
    const events: ConverseStreamOutput[] = [];
    const err = await (async () => {
      for await (const ev of out.stream!) events.push(ev);
    })().catch((e: unknown) => e);
    expect(events).toHaveLength(2);
    expect((err as Error).name).toBe('ModelStreamErrorException');
    expect((err as Error).message).toBe('The model stream failed.');
  });
});
