import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway } from '../../helpers/gateway.js';
import { FAKE_AWS_CREDENTIALS, startFakeBedrock, type FakeBedrock } from '../../fakes/bedrock/server.js';
import { startFakeVertex, type FakeVertex } from '../../fakes/vertex-ai/server.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic/server.js';

const BEDROCK_CLAUDE = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const VERTEX_CLAUDE = 'claude-sonnet-4@20250514';
const EMAIL = 'messages-e2e@test-project.iam.gserviceaccount.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const weather = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object' as const, properties: { query: { type: 'string' } } },
};

type Gateway = Awaited<ReturnType<typeof startGateway>>;

/** The SSE frames of a raw stream body, as [event, data] pairs. */
function framesOf(text: string): Array<[string, string]> {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(f)?.[1] ?? '';
      return [event, data];
    });
}

describe('POST /v1/messages natively on Bedrock and Vertex AI (Anthropic SDK through the gateway)', () => {
  let gw: Gateway;
  let bedrock: FakeBedrock;
  let vertex: FakeVertex;
  let anthropic: FakeAnthropic;

  const bedrockConfig = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      provider: 'bedrock',
      cloud1_access_key_id: FAKE_AWS_CREDENTIALS.accessKeyId,
      cloud1_secret_access_key: FAKE_AWS_CREDENTIALS.secretAccessKey,
      cloud1_region: 'us-east-1',
      custom_host: bedrock.url,
      ...over,
    });
  const vertexConfig = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      provider: 'vertex-ai',
      cloud2_project_id: 'test-project',
      cloud2_region: 'us-east5',
      cloud2_service_account_json: {
        type: 'service_account',
        project_id: 'test-project',
        client_email: EMAIL,
        private_key: PEM,
        private_key_id: 'k1',
        token_uri: vertex.tokenUri,
      },
      custom_host: vertex.origin,
      ...over,
    });
  const client = (config: string, headers: Record<string, string> = {}) =>
    new Anthropic({
      apiKey: 'unused',
      baseURL: gw.url,
      maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': gw.adminKey, 'x-gateway-config': config, ...headers },
    });
  const post = (config: string, body: unknown, headers: Record<string, string> = {}) =>
    gw.fetch('/v1/messages', {
      method: 'POST',
      headers: { 'x-gateway-config': config, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
      body: JSON.stringify(body),
    });
  const logOf = async (traceId: string) => {
    await expect
      .poll(async () => ((await (await gw.fetch(`/v1/logs?trace_id=${traceId}`)).json()) as { data: unknown[] }).data.length, {
        timeout: 5000,
      })
      .toBeGreaterThan(0);
    return ((await (await gw.fetch(`/v1/logs?trace_id=${traceId}`)).json()) as { data: Array<Record<string, unknown>> }).data[0]!;
  };

  beforeAll(async () => {
    bedrock = await startFakeBedrock();
    vertex = await startFakeVertex({ serviceAccounts: [{ client_email: EMAIL, publicKey }], project: 'test-project' });
    anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-cloud' });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await bedrock?.close();
    await vertex?.close();
    await anthropic?.close();
  });
  beforeEach(() => {
    bedrock.reset();
    vertex.reset();
    anthropic.reset();
  });

  describe('Bedrock (InvokeModel in the native Anthropic format, SigV4-signed)', () => {
    it('creates a message: the body goes to /invoke with anthropic_version and the beta list, the answer comes back as Bedrock sent it', async () => {
      const msg = await client(bedrockConfig(), { 'anthropic-beta': 'tools-2024-05-16, output-128k-2025-02-19' }).messages.create({
        model: BEDROCK_CLAUDE,
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hello bedrock' }],
      });
      expect(msg.id).toMatch(/^msg_bdrk_/);
      expect(msg.content).toEqual([{ type: 'text', text: 'echo: hello bedrock' }]);
      expect(msg.model).toBe(BEDROCK_CLAUDE);
      const seen = bedrock.lastRequest!;
      expect(seen.path).toBe(`/model/${encodeURIComponent(BEDROCK_CLAUDE)}/invoke`);
      expect(String(seen.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
      expect(seen.headers['anthropic-version']).toBeUndefined();
      expect(seen.body).toEqual({
        anthropic_version: 'bedrock-2023-05-31',
        anthropic_beta: ['tools-2024-05-16', 'output-128k-2025-02-19'],
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hello bedrock' }],
      });
    });

    it('streams: each chunk becomes one Messages event whose data is the chunk bytes unchanged, assembled by the SDK', async () => {
      const res = await post(
        bedrockConfig(),
        { model: BEDROCK_CLAUDE, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'stream bedrock' }] },
        { 'x-gateway-trace-id': 'trace-bedrock-stream' },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const frames = framesOf(await res.text());
      expect(frames[0]![0]).toBe('message_start');
      expect(frames.at(-1)![0]).toBe('message_stop');
      for (const [event, data] of frames) expect(JSON.parse(data).type).toBe(event);
      // Bedrock's own member on message_stop shows the bytes were passed on, not rebuilt.
      expect(JSON.parse(frames.at(-1)![1])['amazon-bedrock-invocationMetrics']).toMatchObject({ inputTokenCount: expect.any(Number) });
      expect(frames.map(([e]) => e)).not.toContain('error');
      expect(bedrock.lastRequest!.path).toBe(`/model/${encodeURIComponent(BEDROCK_CLAUDE)}/invoke-with-response-stream`);
      expect(bedrock.lastRequest!.body).not.toHaveProperty('stream');
      expect(await logOf('trace-bedrock-stream')).toMatchObject({ endpoint: 'messages', provider: 'bedrock', status: 200 });

      const final = await client(bedrockConfig())
        .messages.stream({ model: BEDROCK_CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'sdk stream' }] })
        .finalMessage();
      expect(final.content).toEqual([{ type: 'text', text: 'echo: sdk stream' }]);
      expect(final.usage.output_tokens).toBeGreaterThan(0);
    });

    it('calls tools, streamed or not, and takes the tool result back (an inference profile id too)', async () => {
      const c = client(bedrockConfig());
      const first = await c.messages.create({
        model: `us.${BEDROCK_CLAUDE}`,
        max_tokens: 100,
        tools: [weather],
        messages: [{ role: 'user', content: 'Paris' }],
      });
      expect(first.stop_reason).toBe('tool_use');
      const use = first.content.find((b) => b.type === 'tool_use');
      expect(use).toMatchObject({ name: 'get_weather', input: { query: 'Paris' } });
      expect(bedrock.lastRequest!.path).toBe(`/model/${encodeURIComponent(`us.${BEDROCK_CLAUDE}`)}/invoke`);
      const streamed = await c.messages
        .stream({ model: BEDROCK_CLAUDE, max_tokens: 100, tools: [weather], messages: [{ role: 'user', content: 'Rome' }] })
        .finalMessage();
      expect(streamed.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { query: 'Rome' } }]);
      const second = await c.messages.create({
        model: BEDROCK_CLAUDE,
        max_tokens: 100,
        tools: [weather],
        messages: [
          { role: 'user', content: 'Paris' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.type === 'tool_use' ? use!.id : '', content: 'sunny' }] },
        ],
      });
      expect(second.content).toEqual([{ type: 'text', text: 'tool said: sunny' }]);
    });

    it('sends other Bedrock models through Converse, translated', async () => {
      const msg = await client(bedrockConfig()).messages.create({
        model: 'meta.llama3-8b-instruct-v1:0',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hello llama' }],
      });
      expect(msg.type).toBe('message');
      expect(bedrock.lastRequest!.path).toBe(`/model/${encodeURIComponent('meta.llama3-8b-instruct-v1:0')}/converse`);
    });

    it('maps an exception frame mid-stream to an Anthropic error event, which the SDK throws', async () => {
      bedrock.failStream({
        afterEvents: 3,
        exceptionType: 'throttlingException',
        message: 'Too many requests, please wait before trying again.',
      });
      const res = await post(bedrockConfig(), {
        model: BEDROCK_CLAUDE,
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'will fail' }],
      });
      expect(res.status).toBe(200);
      const frames = framesOf(await res.text());
      expect(frames.slice(0, 3).map(([e]) => e)).toEqual(['message_start', 'content_block_start', 'ping']);
      const [event, data] = frames.at(-1)!;
      expect(event).toBe('error');
      expect(JSON.parse(data)).toMatchObject({
        type: 'error',
        error: { message: expect.stringContaining('Too many requests'), code: 'ThrottlingException' },
      });

      bedrock.failStream({ afterEvents: 2, exceptionType: 'modelStreamErrorException', message: 'The model stream broke.' });
      const stream = client(bedrockConfig()).messages.stream({
        model: BEDROCK_CLAUDE,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'sdk fail' }],
      });
      await expect(stream.finalMessage()).rejects.toThrow(/model stream broke/);
    });

    it('refuses a target without credentials or with a bad region before calling Bedrock (400, error shape)', async () => {
      const body = { model: BEDROCK_CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
      const noKeys = await post(JSON.stringify({ provider: 'bedrock', cloud1_region: 'us-east-1', custom_host: bedrock.url }), body);
      expect(noKeys.status).toBe(400);
      expect((await noKeys.json()) as { type: string; error: Record<string, unknown> }).toMatchObject({
        type: 'error',
        error: { code: 'invalid_request', param: 'cloud1_access_key_id' },
      });
      const badRegion = await post(bedrockConfig({ custom_host: undefined, cloud1_region: 'us-east-1.evil.example/' }), body);
      expect(badRegion.status).toBe(400);
      expect(((await badRegion.json()) as { error: { code: string; param: string } }).error).toMatchObject({
        code: 'invalid_config',
        param: expect.stringContaining('cloud1_region'),
      });
      const wrongSecret = await post(bedrockConfig({ cloud1_secret_access_key: 'not-the-secret' }), body);
      expect(wrongSecret.status).toBe(403);
      expect(((await wrongSecret.json()) as { error: { code: string } }).error.code).toBe('InvalidSignatureException');
      expect(bedrock.requests).toHaveLength(1);
    });
  });

  describe('Vertex AI (rawPredict / streamRawPredict of publishers/anthropic)', () => {
    it('creates, streams and calls tools with the vertex anthropic_version and the model in the URL', async () => {
      const c = client(vertexConfig(), { 'anthropic-beta': 'tools-2024-05-16' });
      const msg = await c.messages.create({ model: VERTEX_CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hello vertex' }] });
      expect(msg.id).toMatch(/^msg_vrtx_/);
      expect(msg.content).toEqual([{ type: 'text', text: 'echo: hello vertex' }]);
      const seen = vertex.requests.find((r) => r.path.includes(':rawPredict'))!;
      expect(seen.path).toBe(
        '/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
      );
      expect(seen.body).toEqual({
        anthropic_version: 'vertex-2023-10-16',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hello vertex' }],
      });
      expect(seen.headers['anthropic-beta']).toBe('tools-2024-05-16');
      expect(seen.headers['anthropic-version']).toBeUndefined();

      const final = await c.messages
        .stream({ model: VERTEX_CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'stream vertex' }] })
        .finalMessage();
      expect(final.content).toEqual([{ type: 'text', text: 'echo: stream vertex' }]);
      expect(vertex.lastRequest!.path).toMatch(/:streamRawPredict$/);
      expect(vertex.lastRequest!.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });

      const tool = await c.messages.create({
        model: `publishers/anthropic/models/${VERTEX_CLAUDE}`,
        max_tokens: 100,
        tools: [weather],
        messages: [{ role: 'user', content: 'Oslo' }],
      });
      expect(tool.stop_reason).toBe('tool_use');
      expect(tool.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { query: 'Oslo' } });
      const streamedTool = await c.messages
        .stream({ model: VERTEX_CLAUDE, max_tokens: 100, tools: [weather], messages: [{ role: 'user', content: 'Lima' }] })
        .finalMessage();
      expect(streamedTool.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { query: 'Lima' } }]);
    });

    it('passes the stream through byte for byte and logs it as a success', async () => {
      const res = await post(
        vertexConfig(),
        { model: VERTEX_CLAUDE, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'raw vertex' }] },
        { 'x-gateway-trace-id': 'trace-vertex-stream' },
      );
      const text = await res.text();
      expect(text.startsWith('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_vrtx_')).toBe(true);
      expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
      expect(await logOf('trace-vertex-stream')).toMatchObject({ endpoint: 'messages', provider: 'vertex-ai', status: 200 });
    });

    it('sends Gemini models through the chat translation', async () => {
      const msg = await client(vertexConfig()).messages.create({
        model: 'gemini-2.5-flash',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hello gemini' }],
      });
      expect(msg.type).toBe('message');
      expect(vertex.lastRequest!.path).toMatch(/publishers\/google\/models\/gemini-2\.5-flash:generateContent$/);
    });

    it('ends a stream that breaks off with an Anthropic error event', async () => {
      // A call first, so the gateway holds a Vertex token: the fault goes to the next request the fake gets, which must be the stream.
      expect(
        (await post(vertexConfig(), { model: VERTEX_CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'warm up' }] })).status,
      ).toBe(200);
      vertex.fail({ dieAfterChunks: 3 });
      const res = await post(vertexConfig(), {
        model: VERTEX_CLAUDE,
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'will die' }],
      });
      const frames = framesOf(await res.text());
      expect(frames[0]![0]).toBe('message_start');
      const [event, data] = frames.at(-1)!;
      expect(event).toBe('error');
      expect(JSON.parse(data)).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
    });

    it('refuses a target without a project (400 naming cloud2_project_id) before calling Vertex', async () => {
      const res = await post(
        vertexConfig({
          cloud2_project_id: undefined,
          cloud2_service_account_json: { type: 'service_account', client_email: EMAIL, private_key: PEM, token_uri: vertex.tokenUri },
        }),
        {
          model: VERTEX_CLAUDE,
          max_tokens: 10,
          messages: [{ role: 'user', content: 'x' }],
        },
      );
      expect(res.status).toBe(400);
      expect((await res.json()) as { type: string; error: Record<string, unknown> }).toMatchObject({
        type: 'error',
        error: { code: 'invalid_request', param: 'cloud2_project_id' },
      });
      expect(vertex.requests.filter((r) => r.path !== '/token')).toHaveLength(0);
    });
  });

  describe('Anthropic (native stream framing)', () => {
    const config = () => JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant-cloud', custom_host: anthropic.url });

    it('ends a passed-through stream at message_stop, without an error frame, logged as a success', async () => {
      const res = await post(
        config(),
        { model: 'claude-sonnet-4-20250514', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'clean end' }] },
        { 'x-gateway-trace-id': 'trace-anthropic-stream' },
      );
      const text = await res.text();
      expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
      expect(await logOf('trace-anthropic-stream')).toMatchObject({ endpoint: 'messages', provider: 'anthropic', status: 200 });
    });

    it("passes the provider's error event on and the SDK throws it", async () => {
      anthropic.failStreamWithErrorEvent({ afterFrames: 2, message: 'Overloaded right now' });
      const stream = client(config()).messages.stream({
        model: 'claude-sonnet-4-20250514',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'x' }],
      });
      await expect(stream.finalMessage()).rejects.toThrow(/Overloaded right now/);
    });

    it("adds no error event of its own after the provider's, and logs the stream as failed", async () => {
      anthropic.failStreamWithErrorEvent({ afterFrames: 2, message: 'Overloaded right now' });
      const res = await post(
        config(),
        { model: 'claude-sonnet-4-20250514', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x' }] },
        { 'x-gateway-trace-id': 'trace-anthropic-error-event' },
      );
      const text = await res.text();
      expect(text.match(/event: error/g)).toHaveLength(1);
      expect(text.trimEnd().endsWith('"message":"Overloaded right now"}}')).toBe(true);
      expect(await logOf('trace-anthropic-error-event')).toMatchObject({
        status: 502,
        error: {
          code: 'provider_error',
          message: 'The provider ended its stream with an error event (overloaded_error: Overloaded right now).',
        },
      });
    });
  });
});
