import { describe, expect, it } from 'vitest';
import { packRequestLogRows, unpackRequestLogRows } from './pack-request-log-rows.js';
import { rowFromValues, rowValues } from './repos/request-log-columns.js';
import type { RequestLogRow } from './repos/request-logs.js';

/** A row as the INSERT binds it: every column, defaults filled in. */
const bound = (row: RequestLogRow): RequestLogRow => {
  const v: unknown[] = [];
  rowValues(row, v, 0);
  return rowFromValues(v, 0);
};

function row(i: number, extra: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id: `log_${i}`, organisation_id: 'org', workspace_id: 'ws', api_key_id: i % 2 ? 'key' : null, user_id: null, trace_id: `trace-${i}`, endpoint: 'chat', provider: 'openai',
    model: 'gpt-4o-mini', status: 200, stream: i % 2, cache_status: 'DISABLED', config_id: null, prompt_id: null, target_path: 'config', retry_count: 0, prompt_tokens: 19,
    completion_tokens: 31, total_tokens: 50, cost: 0.0000213, latency_ms: 1.25 * i, metadata: '{"team":"a"}', error: null, hook_results: null, created_at: 1_764_000_000_000 + i,
    ...extra,
  };
}

describe('packRequestLogRows / unpackRequestLogRows', () => {
  it('gives back each row with every column, as the INSERT binds it', () => {
    const rows = [row(1), row(2, { cached_tokens: 4, unit_prices: '{"input":1}', attempts: '[]', ttfb_ms: 0.5, rolled_up: 0 }), {} as RequestLogRow];
    const packed = packRequestLogRows(rows)!;
    expect(packed).toBeInstanceOf(ArrayBuffer);
    expect(unpackRequestLogRows(packed)).toEqual(rows.map(bound));
  });

  it('keeps strings of any UTF-8 length, numbers of any kind and empty strings exactly', () => {
    const strings = ['', 'plain', 'é à ü', '日本語のテキスト', 'emoji 😀 and 🧪 pairs', '\u0000 nul and \n newline', 'x'.repeat(70_000), 'ü'.repeat(40_000), '😀'.repeat(30_000)];
    const numbers = [0, -0, -1, 2 ** 53 + 2, 1.5e-300, -123.456, Number.MAX_VALUE, Number.NaN, Number.POSITIVE_INFINITY];
    const rows = strings.map((s, i) => row(i, { error: s, metadata: s, cost: numbers[i % numbers.length]! }));
    const back = unpackRequestLogRows(packRequestLogRows(rows)!);
    expect(back.map((r) => r.error)).toEqual(strings);
    expect(back.map((r) => r.metadata)).toEqual(strings);
    expect(back.map((r) => r.cost)).toEqual(rows.map((r) => r.cost));
    expect(Object.is(back[1]!.cost, -0)).toBe(true);
  });

  it('grows past its first estimate: a batch of 2,000 rows with long bodies', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => row(i, { request_body: `{"n":${i},"pad":"${'p'.repeat(i % 900)}"}`, response_body: i % 3 ? null : 'ü'.repeat(i % 500) }));
    const back = unpackRequestLogRows(packRequestLogRows(rows)!);
    expect(back).toHaveLength(2000);
    expect(back).toEqual(rows.map(bound));
  });

  it('packs nothing when a value is not null, a number or a string (the batch is then cloned as it is)', () => {
    expect(packRequestLogRows([row(1), row(2, { stream: true as unknown as number })])).toBeUndefined();
    expect(packRequestLogRows([row(1, { cost: 10n as unknown as number })])).toBeUndefined();
    expect(packRequestLogRows([row(1, { metadata: { a: 1 } as unknown as string })])).toBeUndefined();
  });

  it('packs an empty batch as no rows', () => {
    expect(unpackRequestLogRows(packRequestLogRows([])!)).toEqual([]);
  });

  it('refuses a buffer it did not write', () => {
    const bad = new Uint8Array([1, 0, 0, 0, 9]).buffer;
    expect(() => unpackRequestLogRows(bad)).toThrow(/unknown tag 9/);
  });
});
