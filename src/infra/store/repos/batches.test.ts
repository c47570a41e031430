import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, type StoreHandle } from '../../../../test/helpers/stores.js';
import type { BatchObject } from '../../../foundation/spec/batches.js';
import {
  BatchLeaseLost,
  claimLines,
  countLines,
  deleteLines,
  finishLine,
  getBatch,
  insertBatch,
  insertLines,
  leaseBatch,
  markDispatched,
  readLines,
  releaseAllClaims,
  renewBatchLeases,
  renewClaims,
  transitionBatch,
  type BatchRow,
} from './batches.js';

function row(id: string, status: BatchRow['status'] = 'in_progress'): BatchRow {
  const batch = {
    id,
    object: 'batch',
    status,
    endpoint: '/v1/chat/completions',
    input_file_id: 'file-gwx',
    completion_window: 'immediate',
  } as BatchObject;
  return {
    id,
    workspace_id: 'ws',
    mode: 'gateway',
    provider: null,
    virtual_key: null,
    status,
    batch,
    route: { headers: {}, organisation_id: 'org', api_key_id: 'k' },
    lease_owner: null,
    lease_until: null,
    created_at: 1,
    updated_at: 1,
  };
}

describe.each(STORE_KINDS)('batch repository on $name', (kind) => {
  let h: StoreHandle;
  beforeAll(async () => {
    h = await kind.open();
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('claims each line once across concurrent claimers, takes over stale claims only', async () => {
    await insertBatch(h.store, row('b1'));
    await insertLines(
      h.store,
      'b1',
      Array.from({ length: 50 }, (_, i) => ({ line_no: i + 1, custom_id: `c${i}`, body: '{}' })),
    );
    const claims = await Promise.all(['w1', 'w2', 'w3'].map((w) => claimLines(h.store, 'b1', w, 1000, 0, 20)));
    const all = claims.flat().map((l) => l.line_no);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(50);
    // Fresh claims are not taken over; stale ones are.
    expect(await claimLines(h.store, 'b1', 'w4', 1500, 900, 10)).toEqual([]);
    await renewClaims(h.store, 'w1', 2000);
    const stolen = await claimLines(h.store, 'b1', 'w4', 2100, 1500, 100);
    expect(stolen.length).toBe(50 - claims[0]!.length);
    // The old owner can no longer record a line it lost; the new one can.
    const lost = claims[1]![0]!;
    expect(await finishLine(h.store, 'b1', lost.line_no, 'w2', true, '{"x":1}', 2200)).toBe(false);
    expect(await finishLine(h.store, 'b1', lost.line_no, 'w4', true, '{"x":1}', 2200)).toBe(true);
    expect(await finishLine(h.store, 'b1', lost.line_no, 'w4', true, '{"x":2}', 2300)).toBe(false);
    const c = await countLines(h.store, 'b1');
    expect(c).toEqual({ total: 50, pending: 0, running: 49, ok: 1, failed: 0 });
    await releaseAllClaims(h.store);
    expect((await countLines(h.store, 'b1')).pending).toBe(49);
    const page = await readLines(h.store, 'b1', lost.line_no, 1);
    expect(page[0]).toMatchObject({ line_no: lost.line_no, state: 'done', ok: 1, result: '{"x":1}' });
  });

  it('claims nothing once the batch leaves in_progress', async () => {
    await insertBatch(h.store, row('b2'));
    await insertLines(h.store, 'b2', [{ line_no: 1, custom_id: 'a', body: '{}' }]);
    const cancelling = { ...row('b2').batch, status: 'cancelling' as const };
    expect(await transitionBatch(h.store, 'b2', ['in_progress'], cancelling, 5)).toBe(true);
    expect(await transitionBatch(h.store, 'b2', ['in_progress'], cancelling, 5)).toBe(false);
    expect(await claimLines(h.store, 'b2', 'w', 10, 0, 5)).toEqual([]);
    expect((await getBatch(h.store, 'b2'))!.status).toBe('cancelling');
  });

  it('records dispatches durably, for the claim holder only and up to the bound; a re-claim reports them', async () => {
    await insertBatch(h.store, row('b4'));
    await insertLines(h.store, 'b4', [{ line_no: 1, custom_id: 'a', body: '{}' }]);
    const [first] = await claimLines(h.store, 'b4', 'w1', 10, 0, 5);
    expect(first).toMatchObject({ line_no: 1, dispatches: 0 });
    expect(await markDispatched(h.store, 'b4', 1, 'w2', 2, 11)).toBe(false);
    expect(await markDispatched(h.store, 'b4', 1, 'w1', 2, 11)).toBe(true);
    // The worker dies; a restart (or a stale takeover) claims the line again and sees the earlier send.
    await releaseAllClaims(h.store);
    const [again] = await claimLines(h.store, 'b4', 'w3', 20, 0, 5);
    expect(again).toMatchObject({ line_no: 1, dispatches: 1 });
    expect(await markDispatched(h.store, 'b4', 1, 'w1', 2, 21)).toBe(false);
    expect(await markDispatched(h.store, 'b4', 1, 'w3', 2, 21)).toBe(true);
    expect(await markDispatched(h.store, 'b4', 1, 'w3', 2, 22)).toBe(false);
    const stolen = await claimLines(h.store, 'b4', 'w4', 100, 50, 5);
    expect(stolen).toMatchObject([{ line_no: 1, dispatches: 2 }]);
    expect(await markDispatched(h.store, 'b4', 1, 'w4', 2, 101)).toBe(false);
  });

  it('fences validation writes by the step lease: a replica that lost it neither adds nor removes lines nor moves the batch', async () => {
    await insertBatch(h.store, row('b5', 'validating'));
    expect(await leaseBatch(h.store, 'b5', ['validating'], 'a', 100, 200)).toBe(true);
    await insertLines(h.store, 'b5', [{ line_no: 1, custom_id: 'a1', body: '{}' }], 'a');
    // b takes the step over after a's lease expired.
    expect(await leaseBatch(h.store, 'b5', ['validating'], 'b', 300, 400)).toBe(true);
    expect(await deleteLines(h.store, 'b5', 'a')).toBe(false);
    expect(await deleteLines(h.store, 'b5', 'b')).toBe(true);
    await insertLines(h.store, 'b5', [{ line_no: 1, custom_id: 'b1', body: '{}' }], 'b');
    await expect(insertLines(h.store, 'b5', [{ line_no: 2, custom_id: 'a2', body: '{}' }], 'a')).rejects.toBeInstanceOf(BatchLeaseLost);
    const failed = { ...row('b5').batch, status: 'failed' as const };
    expect(await transitionBatch(h.store, 'b5', ['validating'], failed, 500, false, 'a')).toBe(false);
    expect((await readLines(h.store, 'b5', 0, 10)).map((l) => l.custom_id)).toEqual(['b1']);
    const running = { ...row('b5').batch, status: 'in_progress' as const };
    expect(await transitionBatch(h.store, 'b5', ['validating'], running, 500, false, 'b')).toBe(true);
  });

  it('leases a batch step to one owner until it expires', async () => {
    await insertBatch(h.store, row('b3', 'finalizing'));
    expect(await leaseBatch(h.store, 'b3', ['finalizing'], 'a', 100, 200)).toBe(true);
    expect(await leaseBatch(h.store, 'b3', ['finalizing'], 'b', 150, 250)).toBe(false);
    expect(await leaseBatch(h.store, 'b3', ['finalizing'], 'a', 150, 250)).toBe(true);
    expect(await leaseBatch(h.store, 'b3', ['finalizing'], 'b', 300, 400)).toBe(true);
    expect(await leaseBatch(h.store, 'b3', ['in_progress'], 'b', 300, 400)).toBe(false);
    // The holder's heartbeat extends the lease: nobody takes it over while it lives.
    await renewBatchLeases(h.store, 'b', 700);
    await renewBatchLeases(h.store, 'a', 5000);
    expect(await leaseBatch(h.store, 'b3', ['finalizing'], 'a', 500, 600)).toBe(false);
    expect(await leaseBatch(h.store, 'b3', ['finalizing'], 'a', 701, 800)).toBe(true);
  });
});
