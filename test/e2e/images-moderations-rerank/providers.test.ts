import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeAzureOpenAI, type FakeAzureOpenAI } from '../../fakes/azure-openai/server.js';
import { startFakeGoogle, type FakeGoogle } from '../../fakes/google/server.js';
import { startFakeVertex, type FakeVertex } from '../../fakes/vertex-ai/server.js';
import { FAKE_AWS_CREDENTIALS, bedrockFault, startFakeBedrock, type FakeBedrock } from '../../fakes/bedrock/server.js';
import { startFakeCohere, type FakeCohere } from '../../fakes/cohere/server.js';
import { startFakeVoyage, type FakeVoyage } from '../../fakes/voyage/server.js';
import { startFakeJina, type FakeJina } from '../../fakes/jina/server.js';
import { readFakeImage } from '../../fakes/shared/fake-media.js';

const EMAIL = 'images-e2e@test-project.iam.gserviceaccount.com';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let gw: TestGateway;
let azure: FakeAzureOpenAI;
let google: FakeGoogle;
let vertex: FakeVertex;
let bedrock: FakeBedrock;
let cohere: FakeCohere;
let voyage: FakeVoyage;
let jina: FakeJina;

beforeAll(async () => {
  [azure, google, vertex, bedrock, cohere, voyage, jina] = await Promise.all([
    startFakeAzureOpenAI({ apiKey: 'az-key', deployments: { 'dalle3-prod': 'dall-e-3' } }),
    startFakeGoogle({ apiKey: 'g-key' }),
    startFakeVertex({ serviceAccounts: [{ client_email: EMAIL, publicKey }], project: 'test-project' }),
    startFakeBedrock(),
    startFakeCohere({ apiKey: 'co-key' }),
    startFakeVoyage({ apiKey: 'vo-key' }),
    startFakeJina('jina-key'),
  ]);
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([azure, google, vertex, bedrock, cohere, voyage, jina].map((f) => f?.close()));
});
beforeEach(() => {
  for (const f of [azure, google, vertex, bedrock, cohere, voyage, jina]) f.reset();
});

const AWS = {
  provider: 'bedrock',
  cloud1_access_key_id: FAKE_AWS_CREDENTIALS.accessKeyId,
  cloud1_secret_access_key: FAKE_AWS_CREDENTIALS.secretAccessKey,
  cloud1_region: 'us-east-1',
};
const vertexConfig = () => ({
  provider: 'vertex-ai',
  cloud2_project_id: 'test-project',
  cloud2_region: 'us-central1',
  cloud2_service_account_json: {
    type: 'service_account',
    project_id: 'test-project',
    client_email: EMAIL,
    private_key: PEM,
    private_key_id: 'k1',
    token_uri: vertex.tokenUri,
  },
  custom_host: vertex.origin,
});
const sdk = (config: unknown) => gw.openai({ 'x-gateway-config': JSON.stringify(config) });

async function rerank(config: unknown, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await gw.fetch('/v1/rerank', {
    method: 'POST',
    headers: { 'x-gateway-config': JSON.stringify(config) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function fetchImage(url: string): Promise<ReturnType<typeof readFakeImage>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return readFakeImage(Buffer.from(await res.arrayBuffer()));
}

const DOCS = [
  'Paris is the capital of France',
  { text: 'Berlin is the capital of Germany', source: 'wiki' },
  'The capital of France has the Louvre',
];

describe('images on every image provider (openai SDK)', () => {
  it('azure-openai: the deployment path with api-version, answer passed through', async () => {
    const res = await sdk({
      provider: 'azure-openai',
      api_key: 'az-key',
      custom_host: azure.url,
      deployment_id: 'dalle3-prod',
    }).images.generate({ model: 'dall-e-3', prompt: 'a quiet harbour', response_format: 'b64_json' });
    expect(azure.lastRequest!.path).toBe('/openai/deployments/dalle3-prod/images/generations');
    expect(azure.lastRequest!.query.get('api-version')).toBe('2024-10-21');
    expect(azure.lastRequest!.headers['api-key']).toBe('az-key');
    expect(res.data![0]!.revised_prompt).toBe('revised: a quiet harbour');
    expect(readFakeImage(Buffer.from(res.data![0]!.b64_json!, 'base64'))).toEqual({ prompt: 'a quiet harbour', index: 0 });
  });

  it('google Imagen: :predict with sampleCount and aspectRatio; b64_json', async () => {
    const res = await sdk({ provider: 'google', api_key: 'g-key', custom_host: google.url }).images.generate({
      model: 'imagen-3.0-generate-002',
      prompt: 'a mountain',
      n: 3,
      size: '1792x1024',
      response_format: 'b64_json',
    });
    expect(google.lastRequest!.path).toBe('/v1beta/models/imagen-3.0-generate-002:predict');
    expect(google.lastRequest!.headers['x-goog-api-key']).toBe('g-key');
    expect(google.lastRequest!.body).toEqual({
      instances: [{ prompt: 'a mountain' }],
      parameters: { sampleCount: 3, aspectRatio: '16:9' },
    });
    expect(res.data).toHaveLength(3);
    expect(readFakeImage(Buffer.from(res.data![2]!.b64_json!, 'base64'))).toEqual({ prompt: 'a mountain', index: 2 });
  });

  it('google Imagen with url (default): inline bytes served from a signed link', async () => {
    const res = await sdk({ provider: 'google', api_key: 'g-key', custom_host: google.url }).images.generate({
      model: 'imagen-3.0-generate-002',
      prompt: 'a valley',
    });
    expect(res.data![0]!.b64_json).toBeUndefined();
    expect(await fetchImage(res.data![0]!.url!)).toEqual({ prompt: 'a valley', index: 0 });
  });

  it('google Imagen: a filtered prompt is a 502 with the reason', async () => {
    const err = await sdk({ provider: 'google', api_key: 'g-key', custom_host: google.url })
      .images.generate({ model: 'imagen-3.0-generate-002', prompt: 'forbidden thing' })
      .catch((e) => e);
    expect(err.status).toBe(502);
    expect(err.error.message).toMatch(/usage guidelines/);
  });

  it('vertex-ai Imagen: the publisher :predict path with a service-account token', async () => {
    const res = await sdk(vertexConfig()).images.generate({
      model: 'imagen-3.0-generate-002',
      prompt: 'a red barn',
      n: 2,
      size: '1024x1792',
    });
    const call = vertex.requests.find((r) => r.path.endsWith(':predict'))!;
    expect(call.path).toBe('/v1/projects/test-project/locations/us-central1/publishers/google/models/imagen-3.0-generate-002:predict');
    expect(call.headers.authorization).toMatch(/^Bearer /);
    expect(call.body.parameters).toEqual({ sampleCount: 2, aspectRatio: '9:16' });
    expect(await fetchImage(res.data![1]!.url!)).toEqual({ prompt: 'a red barn', index: 1 });
  });

  it('bedrock Titan: InvokeModel TEXT_IMAGE, hd → premium, SigV4-signed', async () => {
    const res = await sdk(AWS && { ...AWS, custom_host: bedrock.url }).images.generate({
      model: 'amazon.titan-image-generator-v2:0',
      prompt: 'a lantern',
      n: 2,
      quality: 'hd',
      response_format: 'b64_json',
    });
    expect(bedrock.lastRequest!.path).toBe('/model/amazon.titan-image-generator-v2%3A0/invoke');
    expect(bedrock.lastRequest!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
    expect(bedrock.lastRequest!.body).toEqual({
      taskType: 'TEXT_IMAGE',
      textToImageParams: { text: 'a lantern' },
      imageGenerationConfig: { numberOfImages: 2, width: 1024, height: 1024, quality: 'premium', cfgScale: 8 },
    });
    expect(readFakeImage(Buffer.from(res.data![1]!.b64_json!, 'base64'))).toEqual({ prompt: 'a lantern', index: 1 });
  });

  it('bedrock Stability: {prompt, aspect_ratio} answered as a signed link', async () => {
    const res = await sdk({ ...AWS, custom_host: bedrock.url }).images.generate({
      model: 'stability.sd3-large-v1:0',
      prompt: 'a comet',
      size: '1792x1024',
    });
    expect(bedrock.lastRequest!.body).toEqual({ prompt: 'a comet', aspect_ratio: '16:9', output_format: 'png', mode: 'text-to-image' });
    expect(await fetchImage(res.data![0]!.url!)).toEqual({ prompt: 'a comet', index: 0 });
  });

  it('bedrock Stability refuses n > 1 before calling (400)', async () => {
    const err = await sdk({ ...AWS, custom_host: bedrock.url })
      .images.generate({ model: 'stability.sd3-large-v1:0', prompt: 'x', n: 2 })
      .catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.error.param).toBe('n');
    expect(bedrock.requests).toHaveLength(0);
  });

  it('falls back to the next target when the first answers 500', async () => {
    bedrock.fail(bedrockFault(500, 'InternalServerException', 'boom'));
    const config = {
      strategy: { mode: 'fallback' },
      targets: [
        { ...AWS, custom_host: bedrock.url, override_params: { model: 'amazon.titan-image-generator-v1' } },
        { provider: 'google', api_key: 'g-key', custom_host: google.url, override_params: { model: 'imagen-3.0-generate-002' } },
      ],
    };
    const res = await sdk(config).images.generate({ prompt: 'fallback fox', response_format: 'b64_json' }).withResponse();
    expect(bedrock.requests).toHaveLength(1);
    expect(google.requests).toHaveLength(1);
    expect(res.response.headers.get('x-gateway-provider')).toBe('google');
    expect(res.response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(readFakeImage(Buffer.from(res.data.data![0]!.b64_json!, 'base64'))).toEqual({ prompt: 'fallback fox', index: 0 });
  });
});

describe('rerank on every rerank provider (HTTP)', () => {
  const expectRanked = (body: any, provider: string, model: string) => {
    expect(body.object).toBe('list');
    expect(body.provider).toBe(provider);
    expect(body.model).toBe(model);
    expect(body.results.map((r: any) => r.index)).toEqual([0, 2]);
    expect(body.results[0].document).toEqual({ text: 'Paris is the capital of France' });
    expect(body.results[0].relevance_score).toBeGreaterThanOrEqual(body.results[1].relevance_score);
  };

  it('cohere v2: prefix stripped, object documents flattened, search units', async () => {
    const r = await rerank(
      { provider: 'cohere', api_key: 'co-key', custom_host: cohere.origin },
      { model: 'cohere.rerank-v3.5', query: 'capital of France', documents: DOCS, top_n: 2 },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(cohere.lastRequest!.path).toBe('/v2/rerank');
    expect(cohere.lastRequest!.body).toEqual({
      model: 'rerank-v3.5',
      query: 'capital of France',
      documents: ['Paris is the capital of France', 'Berlin is the capital of Germany', 'The capital of France has the Louvre'],
      top_n: 2,
    });
    expectRanked(r.body, 'cohere', 'rerank-v3.5');
    expect(r.body.usage).toEqual({ search_units: 1 });
  });

  it('voyage: top_n sent as top_k, data mapped', async () => {
    const r = await rerank(
      { provider: 'voyage', api_key: 'vo-key', custom_host: voyage.url },
      { model: 'voyage.rerank-2', query: 'capital of France', documents: DOCS, top_n: 2 },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(voyage.lastRequest!.body.top_k).toBe(2);
    expect(voyage.lastRequest!.body.model).toBe('rerank-2');
    expectRanked(r.body, 'voyage', 'rerank-2');
  });

  it('jina: the vLLM/Jina /rerank format', async () => {
    const r = await rerank(
      { provider: 'jina', api_key: 'jina-key', custom_host: jina.url },
      { model: 'jina-reranker-v2-base-multilingual', query: 'capital of France', documents: DOCS, top_n: 2 },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(jina.lastRequest!.path).toBe('/v1/rerank');
    expectRanked(r.body, 'jina', 'jina-reranker-v2-base-multilingual');
  });

  it('bedrock: Agent Runtime /rerank with the model ARN and numberOfResults, SigV4-signed', async () => {
    const r = await rerank(
      { ...AWS, custom_host: bedrock.url },
      { model: 'amazon.rerank-v1:0', query: 'capital of France', documents: DOCS, top_n: 2 },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(bedrock.lastRequest!.path).toBe('/rerank');
    expect(bedrock.lastRequest!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
    const cfg = bedrock.lastRequest!.body.rerankingConfiguration.bedrockRerankingConfiguration;
    expect(cfg).toEqual({
      numberOfResults: 2,
      modelConfiguration: { modelArn: 'arn:aws:bedrock:us-east-1::foundation-model/amazon.rerank-v1:0' },
    });
    expectRanked(r.body, 'bedrock', 'amazon.rerank-v1:0');
  });

  it('returns every document sorted when top_n is absent, without texts when return_documents is false', async () => {
    const r = await rerank(
      { provider: 'cohere', api_key: 'co-key', custom_host: cohere.origin },
      { model: 'rerank-v3.5', query: 'capital of France', documents: DOCS, return_documents: false },
    );
    expect(r.body.results).toHaveLength(3);
    const scores = r.body.results.map((x: any) => x.relevance_score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(r.body.results[0].document).toBeUndefined();
  });

  it('maps provider errors keeping the status', async () => {
    const r = await rerank(
      { provider: 'voyage', api_key: 'wrong', custom_host: voyage.url },
      { model: 'rerank-2', query: 'q', documents: ['a'] },
    );
    expect(r.status).toBe(401);
    expect(r.body.error).toMatchObject({ message: 'voyage: Provided API key is invalid.', code: 'provider_authentication_error' });
    const b = await rerank({ ...AWS, custom_host: bedrock.url }, { model: 'amazon.nope-v1:0', query: 'q', documents: ['a'] });
    expect(b.status).toBe(400);
    expect(b.body.error.message).toMatch(/model identifier is invalid/);
  });
});
