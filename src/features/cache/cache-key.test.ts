import { describe, expect, it } from 'vitest';
import type { ProviderTarget } from '../../providers/provider.js';
import { exactKey, semanticKey, type KeyInput } from './cache-key.js';

const target = (over: Partial<ProviderTarget> = {}): ProviderTarget => ({
  provider: 'openai',
  apiKey: 'sk-a',
  customHost: 'http://h/v1',
  config: {},
  forwardHeaders: {},
  ...over,
});
const body = {
  model: 'gpt-4o',
  temperature: 0,
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello' },
  ],
};
const input = (over: Partial<KeyInput> = {}): KeyInput => ({ workspaceId: 'ws-1', endpoint: 'chat', target: target(), body, ...over });

describe('exactKey', () => {
  it('ignores key order and answer-neutral fields', () => {
    const reordered = {
      messages: body.messages,
      temperature: 0,
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      user: 'u-9',
      metadata: { a: '1' },
      store: true,
    };
    expect(exactKey(input({ body: reordered }))).toBe(exactKey(input()));
  });

  it('differs for anything that changes the answer or who may see it', () => {
    const k = exactKey(input());
    const variants: KeyInput[] = [
      input({ workspaceId: 'ws-2' }),
      input({ target: target({ apiKey: 'sk-b' }) }),
      input({ target: target({ customHost: 'http://other/v1' }) }),
      input({ target: target({ provider: 'azure-openai' }) }),
      input({ target: target({ config: { resource_name: 'eu' } }) }),
      input({ body: { ...body, model: 'gpt-4o-mini' } }),
      input({ body: { ...body, temperature: 1 } }),
      input({ body: { ...body, messages: [...body.messages.slice(0, 1), { role: 'user', content: 'hello!' }] } }),
      input({ endpoint: 'completions' }),
    ];
    for (const v of variants) expect(exactKey(v)).not.toBe(k);
  });

  it('never contains the credential and ignores routing-only config keys', () => {
    const k = exactKey(input());
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(
      exactKey(input({ target: target({ config: { retry: { attempts: 3 }, cache: { mode: 'simple', max_age: 5 }, weight: 2 } }) })),
    ).toBe(k);
  });
});

describe('semanticKey', () => {
  it('embeds the last user text and buckets everything else', () => {
    const s = semanticKey(input())!;
    expect(s.text).toBe('hello');
    const other = semanticKey(input({ body: { ...body, messages: [body.messages[0], { role: 'user', content: 'hi there' }] } }))!;
    expect(other.bucket).toBe(s.bucket);
    expect(
      semanticKey(
        input({
          body: {
            ...body,
            messages: [
              { role: 'system', content: 'be long' },
              { role: 'user', content: 'hello' },
            ],
          },
        }),
      )!.bucket,
    ).not.toBe(s.bucket);
    expect(semanticKey(input({ workspaceId: 'ws-2' }))!.bucket).not.toBe(s.bucket);
    expect(semanticKey(input({ target: target({ apiKey: 'sk-b' }) }))!.bucket).not.toBe(s.bucket);
  });

  it('joins text parts and keeps image parts in the bucket', () => {
    const img = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
    const withParts = (url: string) =>
      input({
        body: {
          model: 'm',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what' },
                { ...img, image_url: { url } },
                { type: 'text', text: 'is it' },
              ],
            },
          ],
        },
      });
    const a = semanticKey(withParts('data:image/png;base64,AAAA'))!;
    expect(a.text).toBe('what\nis it');
    expect(semanticKey(withParts('data:image/png;base64,BBBB'))!.bucket).not.toBe(a.bucket);
  });

  it('uses the prompt of a text completion and has nothing to embed for embeddings or empty text', () => {
    expect(semanticKey(input({ endpoint: 'completions', body: { model: 'm', prompt: 'say hi' } }))!.text).toBe('say hi');
    expect(semanticKey(input({ endpoint: 'embeddings', body: { model: 'm', input: 'x' } }))).toBeUndefined();
    expect(semanticKey(input({ body: { model: 'm', messages: [{ role: 'user', content: '  ' }] } }))).toBeUndefined();
    expect(semanticKey(input({ body: { model: 'm', messages: [{ role: 'system', content: 'x' }] } }))).toBeUndefined();
  });
});
