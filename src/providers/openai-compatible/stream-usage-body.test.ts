import { describe, expect, it } from 'vitest';
import { streamUsageBodyText, withStreamUsage } from './create-openai-compatible-provider.js';

type Body = Parameters<typeof withStreamUsage>[0] & Record<string, unknown>;

describe('streamUsageBodyText', () => {
  const messages = [{ role: 'user', content: 'Say "hi" \u2014 then stop.' }];
  const bodies: Body[] = [
    { model: 'm', messages, stream: true },
    { model: 'm', messages, stream: true, max_tokens: 64, metadata: { a: '1' } },
    { stream: true, model: 'm', messages },
    { model: 'm', messages, stream: true, stream_options: { include_usage: false } },
    { model: 'm', messages, stream: true, stream_options: {} },
    { model: 'm', messages, stream: true, stream_options: null },
    { model: 'm', messages, stream: true, stream_options: { include_usage: true } },
    { model: 'm', messages, stream: true, stream_options: undefined },
    { model: 'm', messages, stream: false },
    { model: 'm', messages },
    { model: 'm', messages, stream: true, temperature: undefined },
    { stream: true },
    {},
    JSON.parse('{"model":"m","messages":[],"stream":true,"n":1e3,"x":[1,{"y":null}]}') as Body,
  ];

  it('is the text of withStreamUsage(body), byte for byte, for bodies with and without stream_options', () => {
    for (const body of bodies) expect(streamUsageBodyText(body), JSON.stringify(body)).toBe(JSON.stringify(withStreamUsage(body)));
  });

  it('asks a stream without stream_options for its usage, last, and leaves the body as it was', () => {
    const body: Body = { model: 'm', messages, stream: true };
    const text = streamUsageBodyText(body);
    expect(JSON.parse(text)).toEqual({ model: 'm', messages, stream: true, stream_options: { include_usage: true } });
    expect(text.endsWith(',"stream_options":{"include_usage":true}}')).toBe(true);
    expect(body).toEqual({ model: 'm', messages, stream: true });
  });

  it('keeps the other members of a stream_options the client sent', () => {
    const body = { model: 'm', stream: true, stream_options: { include_usage: false, include_obfuscation: false } } as Body;
    expect(JSON.parse(streamUsageBodyText(body))).toEqual({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
    });
  });
});
