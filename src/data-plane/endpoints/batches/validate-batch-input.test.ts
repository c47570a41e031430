import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { validateBatchInput, type BatchInputLine } from './validate-batch-input.js';

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ method: 'POST', url: '/v1/embeddings', body: { model: 'm', input: 'x' }, ...o });

async function run(text: string) {
  const got: BatchInputLine[] = [];
  const r = await validateBatchInput(Readable.from([Buffer.from(text)]), '/v1/embeddings', async (l) => void got.push(...l));
  return { ...r, got };
}

describe('validateBatchInput', () => {
  it('accepts valid lines in order, skipping blank lines, in groups', async () => {
    const text = Array.from({ length: 450 }, (_, i) => line({ custom_id: `c${i}` })).join('\n') + '\n\n';
    const r = await run(text);
    expect(r.errors).toEqual([]);
    expect(r.total).toBe(450);
    expect(r.got.map((l) => l.line_no)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
    expect(JSON.parse(r.got[0]!.body)).toEqual({ model: 'm', input: 'x' });
  });

  it('reports each bad line with its number and hands nothing on', async () => {
    const text = [
      line({ custom_id: 'a' }),
      '',
      '{',
      line({ custom_id: 'a' }),
      line({ custom_id: 'b', body: { stream: true } }),
      line({ custom_id: 'c', url: '/v1/chat/completions' }),
      '[1]',
    ].join('\r\n');
    const r = await run(text);
    expect(r.errors.map((e) => [e.line, e.code, e.param])).toEqual([
      [3, 'invalid_json_line', null],
      [4, 'duplicate_custom_id', 'custom_id'],
      [5, 'invalid_request', 'body.stream'],
      [6, 'mismatched_url', 'url'],
      [7, 'invalid_json_line', null],
    ]);
    expect(r.got).toEqual([]);
  });

  it("refuses a line nested more than 1,000 levels deep (the gateway's JSON limit), not its neighbours", async () => {
    // The line object and its body are two levels; the array nested in `input` makes the rest.
    const deep = (levels: number, id: string) =>
      line({ custom_id: id }).replace('"input":"x"', `"input":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}`);
    const r = await run([deep(1000, 'at-limit'), deep(1001, 'over'), deep(100_000, 'far-over')].join('\n'));
    expect(r.errors.map((e) => [e.line, e.code, e.message])).toEqual([
      [2, 'invalid_json_line', 'This line is nested more than 1000 levels deep.'],
      [3, 'invalid_json_line', 'This line is nested more than 1000 levels deep.'],
    ]);
    expect(r.total).toBe(3);
  });

  it('refuses an empty file', async () => {
    const r = await run('\n\n');
    expect(r.errors).toEqual([{ code: 'empty_file', message: 'The input file holds no requests.', param: 'input_file_id', line: null }]);
  });
});
