import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HttpClient } from '../../foundation/lib/http-client.js';
import { FakeClock } from '../../foundation/lib/clock.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { CallContext, ProviderTarget } from '../provider.js';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { azureOpenAIProvider } from './azure-openai-provider.js';
import { startFakeAzureOpenAI, type FakeAzureOpenAI } from '../../../test/fakes/azure-openai/server.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const http = new HttpClient();

function ctx(target: Partial<ProviderTarget>, stream = false, clock = new FakeClock()): CallContext {
  return {
    target: { provider: 'azure-openai', config: {}, forwardHeaders: {}, ...target },
    stream,
    signal: new AbortController().signal,
    http,
    clock,
  };
}

const chatReq: ChatCompletionRequest = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const chat = azureOpenAIProvider.endpoints.chat!;

describe('azure-openai buildRequest', () => {
  it('targets the resource, the configured deployment and api-version with the api-key header', async () => {
    const call = await chat.buildRequest(
      chatReq,
      ctx({ apiKey: 'k1', config: { resource_name: 'my-res', deployment_id: 'dep-1', api_version: '2024-06-01' } }),
    );
    expect(call.url).toBe('https://my-res.openai.azure.com/openai/deployments/dep-1/chat/completions?api-version=2024-06-01');
    expect(call.headers['api-key']).toBe('k1');
    expect(call.headers.authorization).toBeUndefined();
    expect(JSON.parse(call.body as string).messages).toEqual(chatReq.messages);
  });

  it('accepts cloud3_* names and defaults api-version to a GA version', async () => {
    const call = await chat.buildRequest(
      chatReq,
      ctx({ apiKey: 'k1', config: { cloud3_resource_name: 'r2', cloud3_deployment_id: 'd2' } }),
    );
    expect(call.url).toBe('https://r2.openai.azure.com/openai/deployments/d2/chat/completions?api-version=2024-10-21');
  });

  it('chooses a deployment by model alias, else the is_default one', async () => {
    const deployments = [
      { deployment_id: 'gpt4o-east', alias: 'gpt-4o', api_version: '2024-08-01-preview' },
      { deployment_id: 'mini-east', alias: 'mini', api_version: '2024-10-21', is_default: true },
    ];
    const target = { apiKey: 'k', config: { resource_name: 'r', deployments } };
    expect((await chat.buildRequest(chatReq, ctx(target))).url).toBe(
      'https://r.openai.azure.com/openai/deployments/gpt4o-east/chat/completions?api-version=2024-08-01-preview',
    );
    expect((await chat.buildRequest({ ...chatReq, model: 'other' }, ctx(target))).url).toBe(
      'https://r.openai.azure.com/openai/deployments/mini-east/chat/completions?api-version=2024-10-21',
    );
    const noDefault = { apiKey: 'k', config: { resource_name: 'r', deployments: [deployments[0]] } };
    await expect(Promise.resolve().then(() => chat.buildRequest({ ...chatReq, model: 'other' }, ctx(noDefault)))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'model',
    });
  });

  it('uses custom_host in place of the resource base and serves completions and embeddings paths', async () => {
    const target = { apiKey: 'k', customHost: 'http://127.0.0.1:9/openai', config: { deployment_id: 'd' } };
    expect((await azureOpenAIProvider.endpoints.embeddings!.buildRequest({ input: 'x' }, ctx(target))).url).toBe(
      'http://127.0.0.1:9/openai/deployments/d/embeddings?api-version=2024-10-21',
    );
    expect((await azureOpenAIProvider.endpoints.completions!.buildRequest({ model: 'm', prompt: 'x' }, ctx(target))).url).toBe(
      'http://127.0.0.1:9/openai/deployments/d/completions?api-version=2024-10-21',
    );
  });

  it('sends config Authorization (Entra token) instead of api-key, and forwards headers', async () => {
    const call = await chat.buildRequest(
      chatReq,
      ctx({
        apiKey: 'k',
        config: { resource_name: 'r', deployment_id: 'd', Authorization: 'Bearer entra-tok' },
        forwardHeaders: { 'x-trace': 't1' },
      }),
    );
    expect(call.headers.authorization).toBe('Bearer entra-tok');
    expect(call.headers['api-key']).toBeUndefined();
    expect(call.headers['x-trace']).toBe('t1');
    const noKey = await chat.buildRequest(chatReq, ctx({ config: { resource_name: 'r', deployment_id: 'd', Authorization: 'raw-tok' } }));
    expect(noKey.headers.authorization).toBe('Bearer raw-tok');
  });

  it('refuses a call with no credential, no resource or no deployment', async () => {
    const run = (t: Partial<ProviderTarget>, req = chatReq) => Promise.resolve().then(() => chat.buildRequest(req, ctx(t)));
    await expect(run({ config: { resource_name: 'r', deployment_id: 'd' } })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'api_key',
    });
    await expect(run({ apiKey: 'k', config: { deployment_id: 'd' } })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'resource_name',
    });
    await expect(run({ apiKey: 'k', config: { resource_name: 'r' } }, { messages: [] })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'deployment_id',
    });
  });
});

describe('azure-openai mapping', () => {
  it('passes an Azure answer through unchanged (native schema)', () => {
    const body = JSON.parse(fixture('azure-openai-chat.json'));
    expect(chat.nativeSchema).toBe(true);
    const out = chat.mapResponse(body, chatReq, ctx({}));
    expect(out.choices[0]!.message.content).toBe('Hello! How can I help you today?');
    expect(out.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
  });

  it('maps Azure errors keeping status, message and code', () => {
    const e401 = azureOpenAIProvider.mapError(401, fixture('azure-openai-error-401.json'), {});
    expect(e401).toBeInstanceOf(GatewayError);
    expect(e401.status).toBe(401);
    expect(e401.type).toBe('authentication_error');
    expect(e401.publicCode).toBe('401');
    expect(e401.message).toContain('Access denied');
    const filtered = azureOpenAIProvider.mapError(400, fixture('azure-openai-content-filter-400.json'), {});
    expect(filtered.status).toBe(400);
    expect(filtered.publicCode).toBe('content_filter');
    expect(filtered.param).toBe('prompt');
    const limited = azureOpenAIProvider.mapError(429, '{"error":{"code":"429","message":"Rate limit is exceeded."}}', {
      'retry-after': '6',
    });
    expect(limited.status).toBe(429);
    expect(limited.headers).toEqual({ 'retry-after': '6' });
  });
});

describe('azure-openai against the fake', () => {
  let fake: FakeAzureOpenAI;
  beforeAll(async () => {
    fake = await startFakeAzureOpenAI({
      apiKey: 'az-key',
      bearerTokens: ['entra-token-1'],
      deployments: { 'gpt4o-prod': 'gpt-4o' },
      entra: { clientId: 'cid', clientSecret: 'secret', token: 'entra-token-1' },
    });
  });
  afterAll(() => fake.close());

  async function send(c: CallContext, req: ChatCompletionRequest) {
    const call = await chat.buildRequest(req, c);
    return http.send({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
  }

  it('gets a chat answer and a stream the base mapper parses (Azure filter chunk included)', async () => {
    const target = { apiKey: 'az-key', customHost: fake.url, config: { deployment_id: 'gpt4o-prod' } };
    const res = await send(ctx(target), chatReq);
    expect(res.status).toBe(200);
    const body = (await res.body.json()) as { choices: Array<{ message: { content: string } }> };
    expect(chat.mapResponse(body, chatReq, ctx(target)).choices[0]!.message.content).toBe('echo: hi');

    const streamed = await send(ctx(target, true), { ...chatReq, stream: true });
    const mapper = chat.createStreamMapper!(chatReq, ctx(target, true));
    const chunks: ChatCompletionChunk[] = [];
    for await (const part of streamed.body) chunks.push(...mapper.push(part as Uint8Array));
    chunks.push(...mapper.end());
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: hi');
  });

  it("maps the fake's 401 and DeploymentNotFound", async () => {
    const bad = await send(ctx({ apiKey: 'wrong', customHost: fake.url, config: { deployment_id: 'gpt4o-prod' } }), chatReq);
    const err = azureOpenAIProvider.mapError(bad.status, await bad.body.text(), bad.headers);
    expect(err.status).toBe(401);
    expect(err.publicCode).toBe('401');
    const missing = await send(ctx({ apiKey: 'az-key', customHost: fake.url, config: { deployment_id: 'nope' } }), chatReq);
    expect(azureOpenAIProvider.mapError(missing.status, await missing.body.text(), missing.headers).publicCode).toBe('DeploymentNotFound');
  });

  it('gets and caches an Entra token with client credentials', async () => {
    const clock = new FakeClock();
    const config = {
      deployment_id: 'gpt4o-prod',
      cloud3_entra_tenant_id: 'tenant-1',
      cloud3_entra_client_id: 'cid',
      cloud3_entra_client_secret: 'secret',
      cloud3_entra_authority_host: fake.origin,
    };
    fake.reset();
    const res = await send(ctx({ customHost: fake.url, config }, false, clock), chatReq);
    expect(res.status).toBe(200);
    await res.body.text();
    expect(fake.requests[0]!.path).toBe('/tenant-1/oauth2/v2.0/token');
    expect(new URLSearchParams(fake.requests[0]!.rawBody.toString()).get('scope')).toBe('https://cognitiveservices.azure.com/.default');
    expect(fake.requests[1]!.headers.authorization).toBe('Bearer entra-token-1');
    await (await send(ctx({ customHost: fake.url, config }, false, clock), chatReq)).body.text();
    expect(fake.requests.filter((r) => r.path.endsWith('/token'))).toHaveLength(1);
    const elsewhere = { ...config, cloud3_entra_authority_host: 'http://169.254.169.254' };
    await expect(send(ctx({ customHost: fake.url, config: elsewhere }, false, clock), chatReq)).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'cloud3_entra_authority_host',
    });
    await expect(send(ctx({ config: { ...config, resource_name: 'r' } }, false, clock), chatReq)).rejects.toMatchObject({
      param: 'cloud3_entra_authority_host',
    });
    const wrong = { ...config, cloud3_entra_client_secret: 'bad' };
    await expect(send(ctx({ customHost: fake.url, config: wrong }, false, clock), chatReq)).rejects.toMatchObject({
      code: 'provider_error',
      status: 401,
      publicCode: 'invalid_client',
    });
  });

  it('lists models with api-version', async () => {
    const models = await azureOpenAIProvider.listModels!(ctx({ apiKey: 'az-key', customHost: fake.url, config: {} }));
    expect(models.map((m) => m.id)).toEqual(['gpt-4o']);
  });
});
