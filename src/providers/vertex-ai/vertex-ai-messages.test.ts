import { describe, expect, it } from 'vitest';
import { systemClock } from '../../foundation/lib/clock.js';
import { HttpClient } from '../../foundation/lib/http-client.js';
import type { MessagesRequest } from '../../foundation/spec/messages.js';
import type { CallContext } from '../provider.js';
import { VertexTokenCache } from './vertex-ai-auth.js';
import { createVertexMessages } from './vertex-ai-messages.js';

const messages = createVertexMessages('vertex-ai', new VertexTokenCache());
const req: MessagesRequest = { model: 'claude-sonnet-4@20250514', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };

/** A target authenticated by an access token as `api_key` (no token exchange). */
function ctx(
  stream: boolean,
  config: Record<string, unknown> = { cloud2_project_id: 'my-project', cloud2_region: 'us-east5' },
  forwardHeaders: Record<string, string> = {},
): CallContext {
  return {
    target: { provider: 'vertex-ai', apiKey: 'ya29.token', config, forwardHeaders },
    stream,
    signal: new AbortController().signal,
    http: new HttpClient(),
    clock: systemClock,
  };
}

describe('vertex-ai messages endpoint (Claude through rawPredict)', () => {
  it('serves Claude models only', () => {
    expect(messages.servesModel!('claude-sonnet-4@20250514')).toBe(true);
    expect(messages.servesModel!('publishers/anthropic/models/claude-3-5-haiku@20241022')).toBe(true);
    expect(messages.servesModel!('gemini-2.5-flash')).toBe(false);
    expect(messages.servesModel!(undefined)).toBe(false);
  });

  it('calls rawPredict with the vertex anthropic_version and without model; streamRawPredict with stream: true', async () => {
    const call = await messages.buildRequest(
      { ...req, anthropic_version: '2023-06-01' } as MessagesRequest,
      ctx(false, undefined, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'b-1' }),
    );
    expect(call.url).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
    );
    expect(JSON.parse(String(call.body))).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(call.headers).toMatchObject({ authorization: 'Bearer ya29.token', 'anthropic-beta': 'b-1', 'content-type': 'application/json' });
    expect(call.headers['anthropic-version']).toBeUndefined();
    const streamed = await messages.buildRequest(
      { ...req, stream: true },
      ctx(true, { cloud2_project_id: 'my-project', cloud2_region: 'global' }),
    );
    expect(streamed.url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/my-project/locations/global/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict',
    );
    expect(JSON.parse(String(streamed.body))).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
  });

  it('needs a project and a model (400 naming the field)', async () => {
    await expect(async () => messages.buildRequest(req, ctx(false, { cloud2_region: 'us-east5' }))).rejects.toMatchObject({
      status: 400,
      param: 'cloud2_project_id',
    });
    await expect(async () => messages.buildRequest({ ...req, model: '' }, ctx(false))).rejects.toMatchObject({
      status: 400,
      param: 'model',
    });
  });
});
