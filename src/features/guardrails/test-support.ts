/** Builders for check tests (imported by *.test.ts only). */
import type { CheckInput } from './check.js';

/** A before-request input whose request text is `text`. */
export function before(text: string, extra: Partial<CheckInput['request']> = {}): CheckInput {
  return {
    eventType: 'beforeRequestHook',
    requestText: text,
    request: { body: { messages: [{ role: 'user', content: text }] }, endpoint: 'chat', metadata: {}, ...extra },
  };
}

/** An after-request input whose response text is `text` (request text is unrelated on purpose). */
export function after(text: string, responseBody?: unknown): CheckInput {
  return {
    eventType: 'afterRequestHook',
    requestText: 'REQUEST TEXT',
    responseText: text,
    request: { body: { messages: [{ role: 'user', content: 'REQUEST TEXT' }] }, endpoint: 'chat', metadata: {} },
    response: { status: 200, body: responseBody },
  };
}

/** The value `fn` throws; fails the test when it does not throw. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

/** A node:http server on 127.0.0.1 for network-check tests. */
export async function localServer(handler: import('node:http').RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on 127.0.0.1 where nothing listens. */
export async function deadUrl(): Promise<string> {
  const s = await localServer(() => undefined);
  await s.close();
  return s.url;
}
