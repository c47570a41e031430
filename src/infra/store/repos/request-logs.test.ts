import { describe, expect, it } from 'vitest';
import { COLUMNS, rowValues, type RequestLogRow } from './request-logs.js';

/** What a column a row leaves out holds: 0 for the token details (migration 0024), 1 for `rolled_up`, else null. */
const defaultOf = (column: string): number | null =>
  column === 'rolled_up' ? 1 : ['cached_tokens', 'cache_write_tokens', 'reasoning_tokens'].includes(column) ? 0 : null;

/** What the INSERT binds for a row: each column's value, or its default when the row leaves it out. */
const expected = (row: Partial<RequestLogRow>) => COLUMNS.map((c) => row[c] ?? defaultOf(c));

describe('rowValues', () => {
  it('lists a row in COLUMNS order (each column its own value)', () => {
    const row = Object.fromEntries(COLUMNS.map((c, i) => [c, `${c}-${i}`])) as unknown as RequestLogRow;
    const out: unknown[] = [];
    rowValues(row, out, 0);
    expect(out).toEqual(expected(row));
  });

  it('fills what a row leaves out with the column defaults, at any offset', () => {
    const row = {
      id: 'r1',
      organisation_id: 'o',
      workspace_id: 'w',
      trace_id: 't',
      endpoint: 'chat',
      status: 200,
      stream: 0,
      retry_count: 0,
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
      cost: 0,
      latency_ms: 5,
      metadata: '{}',
      created_at: 9,
    } as RequestLogRow;
    const out: unknown[] = new Array(COLUMNS.length * 2).fill('x');
    rowValues(row, out, COLUMNS.length);
    expect(out.slice(COLUMNS.length)).toEqual(expected(row));
    expect(out.slice(0, COLUMNS.length).every((v) => v === 'x')).toBe(true);
    const empty: unknown[] = [];
    rowValues({} as RequestLogRow, empty, 0);
    expect(empty).toEqual(expected({}));
  });
});
