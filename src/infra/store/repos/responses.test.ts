import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import { baseResponse, messageItem } from '../../../data-plane/endpoints/responses/response-object.js';
import { normalizeInputItems } from '../../../data-plane/endpoints/responses/normalize-input-items.js';
import { deleteResponse, getResponse, saveResponse, type StoredResponse } from './responses.js';

describe.each(STORE_KINDS)('responses repository on $name', (kind) => {
  let h: StoreHandle;
  const now = Date.UTC(2026, 0, 1);

  function stored(id: string, over: Partial<StoredResponse> = {}): StoredResponse {
    const response = {
      ...baseResponse({ model: 'claude-x', input: 'hi', metadata: { team: 'ü' } }, id, now / 1000),
      status: 'completed' as const,
      output: [messageItem('msg_1', 'echo: hi', 'completed')],
      output_text: 'echo: hi',
    };
    return {
      id,
      workspace_id: 'ws1',
      mode: 'gateway',
      provider: 'anthropic',
      previous_response_id: null,
      status: 'completed',
      response,
      input_items: normalizeInputItems('hi'),
      created_at: now,
      ...over,
    };
  }

  beforeAll(async () => {
    h = await kind.open();
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('stores and reads back a response object and its input items unchanged', async () => {
    const r = stored('resp_a', { previous_response_id: 'resp_prev' });
    await saveResponse(h.store, r);
    const got = await getResponse(h.store, 'resp_a', 'ws1');
    expect(got).toEqual(r);
    expect(typeof got!.created_at).toBe('number');
  });

  it('is scoped to its workspace', async () => {
    await saveResponse(h.store, stored('resp_b'));
    expect(await getResponse(h.store, 'resp_b', 'ws2')).toBeUndefined();
    expect(await deleteResponse(h.store, 'resp_b', 'ws2')).toBe(false);
    expect(await getResponse(h.store, 'resp_b', 'ws1')).toBeDefined();
  });

  it('a second save of the same id replaces status and object (a stream that finished)', async () => {
    const first = stored('resp_c', { status: 'in_progress', response: { ...stored('resp_c').response, status: 'in_progress' } });
    await saveResponse(h.store, first);
    const failed = stored('resp_c', {
      status: 'failed',
      response: { ...first.response, status: 'failed', error: { code: 'server_error', message: 'boom' } },
    });
    await saveResponse(h.store, failed);
    const got = await getResponse(h.store, 'resp_c', 'ws1');
    expect(got!.status).toBe('failed');
    expect(got!.response.error).toEqual({ code: 'server_error', message: 'boom' });
  });

  it('deletes once', async () => {
    await saveResponse(h.store, stored('resp_d'));
    expect(await deleteResponse(h.store, 'resp_d', 'ws1')).toBe(true);
    expect(await deleteResponse(h.store, 'resp_d', 'ws1')).toBe(false);
    expect(await getResponse(h.store, 'resp_d', 'ws1')).toBeUndefined();
  });
});
