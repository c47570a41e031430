import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../foundation/lib/http-client.js';
import type { CheckInput } from '../check.js';
import { checkHttpFrom } from '../check-http.js';
import { deadUrl, localServer } from '../test-support.js';
import { dataUrlSize, imageUrlsOf, inlineImage } from './inline-image.js';

function withImages(urls: string[], http?: CheckInput['http']): CheckInput {
  return {
    eventType: 'beforeRequestHook',
    requestText: 'look',
    request: {
      endpoint: 'chat',
      metadata: {},
      body: {
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'look' }, ...urls.map((url) => ({ type: 'image_url', image_url: { url } }))] },
        ],
      },
    },
    http,
  };
}

const dataUrl = (bytes: number) => `data:image/png;base64,${Buffer.alloc(bytes, 7).toString('base64')}`;

describe('default.inlineImage', () => {
  const client = new HttpClient();
  const http = checkHttpFrom(client);
  let server: Awaited<ReturnType<typeof localServer>>;
  let down: string;

  beforeAll(async () => {
    down = await deadUrl();
    server = await localServer((req, res) => {
      switch (req.url) {
        case '/small.png':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100' });
          return res.end(Buffer.alloc(100));
        case '/big.png':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': '5000' });
          return res.end(Buffer.alloc(5000));
        case '/big-chunked.png':
          res.writeHead(200, { 'content-type': 'image/png' });
          for (let i = 0; i < 6; i++) res.write(Buffer.alloc(500));
          return res.end();
        case '/slow.png':
          return void setTimeout(() => res.end(Buffer.alloc(10)), 1500);
        default:
          res.writeHead(404);
          return res.end('not found');
      }
    });
  });

  afterAll(async () => {
    await server.close();
    await client.close();
  });

  it('measures data URLs from their base64 length', () => {
    expect(dataUrlSize(dataUrl(1000))).toBe(1000);
    expect(dataUrlSize(dataUrl(1001))).toBe(1001);
    expect(dataUrlSize(dataUrl(1002))).toBe(1002);
    expect(dataUrlSize('data:text/plain,hello%20world')).toBe(11);
  });

  it('lists image URLs from chat parts (object and string forms) and responses input', () => {
    expect(
      imageUrlsOf({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: 'https://a/1.png' },
              { type: 'image_url', image_url: { url: 'https://a/2.png' } },
            ],
          },
        ],
      }),
    ).toEqual(['https://a/1.png', 'https://a/2.png']);
    expect(imageUrlsOf({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://a/3.png' }] }] })).toEqual([
      'https://a/3.png',
    ]);
  });

  it('passes data URLs under the limit and fails one over it', async () => {
    expect((await inlineImage.run(withImages([dataUrl(1000)]), { maxSizeBytes: 1000 })).verdict).toBe(true);
    const r = await inlineImage.run(withImages([dataUrl(10), dataUrl(1001)]), { maxSizeBytes: 1000 });
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({
      images: [
        { index: 0, sizeBytes: 10 },
        { index: 1, sizeBytes: 1001 },
      ],
    });
  });

  it('fetches http images: small passes, declared-large and chunked-large fail', async () => {
    expect((await inlineImage.run(withImages([`${server.url}/small.png`], http), { maxSizeBytes: 1000 })).verdict).toBe(true);
    const big = await inlineImage.run(withImages([`${server.url}/big.png`], http), { maxSizeBytes: 1000 });
    expect(big.verdict).toBe(false);
    expect(big.data).toMatchObject({ images: [{ sizeBytes: 5000 }] });
    const chunked = await inlineImage.run(withImages([`${server.url}/big-chunked.png`], http), { maxSizeBytes: 1000 });
    expect(chunked.verdict).toBe(false);
    expect(chunked.error).toBeUndefined();
  });

  it('a slow image server times out: fails open by default, closed with failOnError', async () => {
    const t0 = Date.now();
    const open = await inlineImage.run(withImages([`${server.url}/slow.png`], http), { timeoutMs: 200 });
    expect(Date.now() - t0).toBeLessThan(1200);
    expect(open).toMatchObject({ verdict: true, error: 'image 0: timed out after 200 ms' });
    expect((await inlineImage.run(withImages([`${server.url}/slow.png`], http), { timeoutMs: 200, failOnError: true })).verdict).toBe(
      false,
    );
  });

  it('a down server, a 404 or a missing HTTP client fail open or closed', async () => {
    const downRes = await inlineImage.run(withImages([`${down}/a.png`], http), {});
    expect(downRes.verdict).toBe(true);
    expect(downRes.error).toMatch(/^image 0: /);
    expect((await inlineImage.run(withImages([`${down}/a.png`], http), { failOnError: true })).verdict).toBe(false);
    expect(await inlineImage.run(withImages([`${server.url}/missing.png`], http), { failOnError: true })).toMatchObject({
      verdict: false,
      error: 'image 0: HTTP 404',
    });
    expect(await inlineImage.run(withImages([`${server.url}/small.png`]), {})).toMatchObject({
      verdict: true,
      error: 'image 0: no HTTP client available',
    });
  });

  it('uses the documented defaults and passes a request without images', async () => {
    const r = await inlineImage.run(withImages([]), {});
    expect(r.verdict).toBe(true);
    expect(r.data).toMatchObject({ maxSizeBytes: 20 * 1024 * 1024, images: [] });
  });

  it('rejects bad parameters', () => {
    expect(() => inlineImage.validateParams({ maxSizeBytes: 0 })).toThrow(/default\.inlineImage\.maxSizeBytes: must be between 1/);
    expect(() => inlineImage.validateParams({ timeoutMs: 'fast' })).toThrow(/timeoutMs: must be a whole number/);
    expect(() => inlineImage.validateParams({ failOnError: 'no' })).toThrow(/failOnError: must be a boolean/);
  });
});
