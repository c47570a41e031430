import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HttpClient } from '../../foundation/lib/http-client.js';
import { FakeClock } from '../../foundation/lib/clock.js';
import type { CallContext, ProviderTarget } from '../provider.js';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../foundation/spec/chat.js';
import { azureAIProvider } from './azure-ai-provider.js';
import { startFakeAzureAI, type FakeAzureAI } from '../../../test/fakes/azure-ai/server.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const http = new HttpClient();

function ctx(target: Partial<ProviderTarget>, stream = false): CallContext {
  return {
    target: { provider: 'azure-ai', config: {}, forwardHeaders: {}, ...target },
    stream,
    signal: new AbortController().signal,
    http,
    clock: new FakeClock(),
  };
}

const chatReq: ChatCompletionRequest = { model: 'Mistral-large', messages: [{ role: 'user', content: 'hi' }] };
const chat = azureAIProvider.endpoints.chat!;
const build = (t: Partial<ProviderTarget>, req: ChatCompletionRequest = chatReq) =>
  Promise.resolve().then(() => chat.buildRequest(req, ctx(t)));

describe('azure-ai buildRequest', () => {
  it('serverless: endpoint.region.models.ai.azure.com, api-version, bearer key, extra-parameters drop', async () => {
    const call = await build({
      apiKey: 'k',
      config: {
        cloud3_deployment_type: 'serverless',
        cloud3_endpoint_name: 'mistral-large-xyz',
        cloud3_region: 'eastus2',
        cloud3_api_version: '2024-05-01-preview',
      },
    });
    expect(call.url).toBe('https://mistral-large-xyz.eastus2.models.ai.azure.com/chat/completions?api-version=2024-05-01-preview');
    expect(call.headers.authorization).toBe('Bearer k');
    expect(call.headers['extra-parameters']).toBe('drop');
    expect(call.headers['azureml-model-deployment']).toBeUndefined();
  });

  it('serverless falls back to cloud3_deployment_name for the host and to the default api-version', async () => {
    const call = await build({
      apiKey: 'k',
      config: { cloud3_deployment_name: 'Llama-3-8B', cloud3_deployment_type: 'serverless', cloud3_region: 'westus3' },
    });
    expect(call.url).toBe('https://Llama-3-8B.westus3.models.ai.azure.com/chat/completions?api-version=2024-05-01-preview');
  });

  it('managed: endpoint.region.inference.ml.azure.com with the azureml-model-deployment header', async () => {
    const call = await build({
      apiKey: 'k',
      config: {
        cloud3_deployment_type: 'managed',
        cloud3_endpoint_name: 'my-ep',
        cloud3_region: 'swedencentral',
        cloud3_deployment_name: 'blue',
      },
    });
    expect(call.url).toBe('https://my-ep.swedencentral.inference.ml.azure.com/chat/completions?api-version=2024-05-01-preview');
    expect(call.headers['azureml-model-deployment']).toBe('blue');
    expect(call.headers.authorization).toBe('Bearer k');
  });

  it('foundry resource: services.ai.azure.com/models with the api-key header', async () => {
    const call = await build({ apiKey: 'k', config: { cloud3_resource_name: 'my-foundry', cloud3_api_version: '2025-04-01' } });
    expect(call.url).toBe('https://my-foundry.services.ai.azure.com/models/chat/completions?api-version=2025-04-01');
    expect(call.headers['api-key']).toBe('k');
    expect(call.headers.authorization).toBeUndefined();
  });

  it('config Authorization (Entra) replaces the key; custom_host replaces the endpoint; embeddings path', async () => {
    const call = await build({ customHost: 'http://127.0.0.1:9', config: { Authorization: 'Bearer entra' } });
    expect(call.url).toBe('http://127.0.0.1:9/chat/completions?api-version=2024-05-01-preview');
    expect(call.headers.authorization).toBe('Bearer entra');
    const emb = await azureAIProvider.endpoints.embeddings!.buildRequest(
      { input: 'x' },
      ctx({ apiKey: 'k', customHost: 'http://127.0.0.1:9' }),
    );
    expect(emb.url).toBe('http://127.0.0.1:9/embeddings?api-version=2024-05-01-preview');
    expect(azureAIProvider.endpoints.completions).toBeUndefined();
  });

  it('refuses missing credentials, region or endpoint name', async () => {
    await expect(build({ customHost: 'http://127.0.0.1:9', config: {} })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'api_key',
    });
    await expect(build({ apiKey: 'k', config: { cloud3_endpoint_name: 'e', cloud3_deployment_type: 'serverless' } })).rejects.toMatchObject(
      { param: 'cloud3_region' },
    );
    await expect(build({ apiKey: 'k', config: { cloud3_deployment_type: 'managed', cloud3_region: 'r' } })).rejects.toMatchObject({
      param: 'cloud3_endpoint_name',
    });
  });
});

describe('azure-ai mapping', () => {
  it('passes the answer through and maps errors keeping status and code', () => {
    const out = chat.mapResponse(JSON.parse(fixture('azure-ai-chat.json')), chatReq, ctx({}));
    expect(out.usage!.completion_tokens).toBe(72);
    const err = azureAIProvider.mapError(422, fixture('azure-ai-error-422.json'), {});
    expect(err.status).toBe(422);
    expect(err.publicCode).toBe('Invalid input');
    expect(err.message).toBe('invalid input error');
    expect(err.provider).toBe('azure-ai');
  });
});

describe('azure-ai against the fake', () => {
  let fake: FakeAzureAI;
  beforeAll(async () => {
    fake = await startFakeAzureAI({ apiKey: 'ai-key', model: 'Mistral-large' });
  });
  afterAll(() => fake.close());

  it('gets a chat answer even with fields the model inference API does not know (dropped)', async () => {
    const target = { apiKey: 'ai-key', customHost: fake.url, config: {} };
    const call = await chat.buildRequest({ ...chatReq, logit_bias: { '5': 1 } }, ctx(target));
    const res = await http.send({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
    expect(res.status).toBe(200);
    expect(chat.mapResponse(await res.body.json(), chatReq, ctx(target)).choices[0]!.message.content).toBe('echo: hi');
  });

  it('streams through the base mapper', async () => {
    const target = { apiKey: 'ai-key', customHost: fake.url, config: {} };
    const call = await chat.buildRequest({ ...chatReq, stream: true }, ctx(target, true));
    const res = await http.send({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
    const mapper = chat.createStreamMapper!(chatReq, ctx(target, true));
    const chunks: ChatCompletionChunk[] = [];
    for await (const part of res.body) chunks.push(...mapper.push(part as Uint8Array));
    chunks.push(...mapper.end());
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: hi');
  });

  it('maps the fake 401 and lists the model from /info', async () => {
    const call = await chat.buildRequest(chatReq, ctx({ apiKey: 'bad', customHost: fake.url }));
    const res = await http.send({ url: call.url, method: call.method, headers: call.headers, body: call.body as string });
    const err = azureAIProvider.mapError(res.status, await res.body.text(), res.headers);
    expect(err.status).toBe(401);
    expect(err.publicCode).toBe('Unauthorized');
    const models = await azureAIProvider.listModels!(ctx({ apiKey: 'ai-key', customHost: fake.url }));
    expect(models).toEqual([{ id: 'Mistral-large', object: 'model', created: 0, owned_by: 'Meta', provider: 'azure-ai' }]);
  });
});
