import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync, sign } from 'node:crypto';
import { JWT } from 'google-auth-library';
import { ApiError, GoogleGenAI } from '@google/genai';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeVertex, type FakeVertex } from './server.js';
import { GOOGLE_TOKEN_URL } from './token-endpoint.js';

const EMAIL = 'gateway@test-project.iam.gserviceaccount.com';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let fake: FakeVertex;

beforeAll(async () => {
  fake = await startFakeVertex({ serviceAccounts: [{ client_email: EMAIL, publicKey }], project: 'test-project' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/**
 * A google-auth-library JWT client for the key. The library always posts to Google's token URL with
 * that URL as `aud`, whatever the key's `token_uri` says, so its transporter is pointed at the fake.
 */
function jwtClient(key = PRIVATE_PEM): JWT {
  const client = new JWT({ email: EMAIL, key, scopes: [SCOPE] });
  client.transporter.interceptors.request.add({
    resolved: async (opts) => {
      if (String(opts.url) === GOOGLE_TOKEN_URL) opts.url = new URL(fake.tokenUri);
      return opts;
    },
  });
  return client;
}

function assertion(claims: Record<string, unknown>, key = PRIVATE_PEM): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc(claims)}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), key).toString('base64url')}`;
}

async function postToken(jwt: string): Promise<{ status: number; body: any }> {
  const res = await fetch(fake.tokenUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }),
  });
  return { status: res.status, body: await res.json() };
}

describe('Vertex AI fake token endpoint, proven with google-auth-library', () => {
  it('issues a token for a correctly signed assertion, accepted on model calls', async () => {
    const { token } = await jwtClient().getAccessToken();
    expect(token).toMatch(/^ya29\.fake-/);
    expect(fake.tokens.accepts(token!)).toBe(true);
    expect(fake.tokenRequests).toBe(1);
  });

  it('rejects an assertion signed with another key', async () => {
    await expect(jwtClient(other).getAccessToken()).rejects.toThrow(/invalid_grant|Invalid JWT Signature/);
  });

  it('rejects expired, wrongly addressed and unscoped assertions', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { iss: EMAIL, scope: SCOPE, aud: fake.tokenUri, iat: now, exp: now + 3600 };
    expect((await postToken(assertion(base))).status).toBe(200);
    const expired = await postToken(assertion({ ...base, iat: now - 7200, exp: now - 3600 }));
    expect(expired).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('short-lived') } });
    expect((await postToken(assertion({ ...base, aud: 'https://elsewhere.example/token' }))).body.error).toBe('invalid_grant');
    expect((await postToken(assertion({ ...base, scope: 'openid' }))).body.error).toBe('invalid_scope');
    expect((await postToken(assertion({ ...base, iss: 'stranger@x.iam.gserviceaccount.com' }))).body.error).toBe('invalid_grant');
  });

  it('answers 401 UNAUTHENTICATED to an unknown bearer token', async () => {
    const res = await fetch(
      `${fake.origin}/v1/projects/test-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`,
      {
        method: 'POST',
        headers: { authorization: 'Bearer ya29.made-up', 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
      },
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });
});

describe('Vertex AI fake Gemini paths, proven with @google/genai in vertexai mode', () => {
  const genai = () =>
    new GoogleGenAI({
      vertexai: true,
      project: 'test-project',
      location: 'us-central1',
      apiVersion: 'v1',
      googleAuthOptions: { authClient: jwtClient() },
      httpOptions: { baseUrl: fake.origin },
    });

  it('generates content with a service-account token', async () => {
    const res = await genai().models.generateContent({ model: 'gemini-2.5-flash', contents: 'hello vertex' });
    expect(res.text).toBe('echo: hello vertex');
    expect(fake.lastRequest?.path).toBe(
      '/v1/projects/test-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(fake.lastRequest?.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
  });

  it('streams and calls a function', async () => {
    const ai = genai();
    let text = '';
    for await (const c of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'a b' })) text += c.text ?? '';
    expect(text).toBe('echo: a b');
    const call = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'weather?',
      config: {
        tools: [
          {
            functionDeclarations: [
              { name: 'weather', parameters: { type: 'OBJECT' as never, properties: { query: { type: 'STRING' as never } } } },
            ],
          },
        ],
      },
    });
    expect(call.functionCalls).toEqual([{ name: 'weather', args: { query: 'weather?' } }]);
  });

  it('surfaces a Google error (project without permission)', async () => {
    const ai = new GoogleGenAI({
      vertexai: true,
      project: 'other-project',
      location: 'us-central1',
      apiVersion: 'v1',
      googleAuthOptions: { authClient: jwtClient() },
      httpOptions: { baseUrl: fake.origin },
    });
    const err = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    expect((err as ApiError).message).toContain('PERMISSION_DENIED');
  });
});

describe('Vertex AI fake Anthropic paths, proven with @anthropic-ai/sdk', () => {
  /**
   * @anthropic-ai/vertex-sdk is not installed; its documented behaviour (POST to rawPredict /
   * streamRawPredict, `model` moved from the body to the URL, `anthropic_version: vertex-2023-10-16`)
   * is reproduced by a fetch wrapper around the plain SDK.
   */
  async function claude(): Promise<Anthropic> {
    const token = (await jwtClient().getAccessToken()).token!;
    return new Anthropic({
      apiKey: 'unused',
      baseURL: fake.origin,
      fetch: async (url, init) => {
        const body = JSON.parse(String(init?.body));
        const { model, ...rest } = body;
        const method = rest.stream ? 'streamRawPredict' : 'rawPredict';
        const target = `${fake.origin}/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/${model}:${method}`;
        expect(String(url)).toMatch(/\/v1\/messages$/);
        return fetch(target, {
          ...init,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ ...rest, anthropic_version: 'vertex-2023-10-16' }),
        });
      },
    });
  }

  it('answers rawPredict with a message and streamRawPredict with Anthropic SSE events', async () => {
    const client = await claude();
    const msg = await client.messages.create({
      model: 'claude-sonnet-4@20250514',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi claude' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: hi claude' }]);
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    const stream = client.messages.stream({
      model: 'claude-sonnet-4@20250514',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'one two' }],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'echo: one two' }]);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('streams a tool_use block', async () => {
    const client = await claude();
    const stream = client.messages.stream({
      model: 'claude-sonnet-4@20250514',
      max_tokens: 64,
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { query: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'find it' }],
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content[0]).toMatchObject({ type: 'tool_use', name: 'lookup', input: { query: 'find it' } });
  });
});
