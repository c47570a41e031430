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
