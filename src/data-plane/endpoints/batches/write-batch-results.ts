import { Readable } from 'node:stream';
import type { GatewayFiles } from '../files/gateway-files.js';
import type { BatchOutputLine } from '../../../foundation/spec/batches.js';
import type { Store } from '../../../infra/store/store.js';
import { readLines } from '../../../infra/store/repos/batches.js';

/** Ids of a batch's output and error files: derived from the batch id, so a finalisation that is redone overwrites them. */
export function resultFileIds(batchId: string): { output: string; error: string } {
  const tail = batchId.replace(/^batch_gw/, '');
  return { output: `file-gwout${tail}`, error: `file-gwerr${tail}` };
}

/**
 * Writes a batch's output file (lines that succeeded) and error file (lines that failed, and with
 * `unfinished` set, an error line for every line that never ran) in OpenAI's batch output format, in
 * input order, streamed from the store page by page. A file with no line is not written (its id is null).
 * @see https://platform.openai.com/docs/guides/batch#5-retrieve-the-results
 */
export async function writeBatchResults(
  store: Store,
  files: GatewayFiles,
  workspaceId: string,
  batchId: string,
  unfinished?: { code: string; message: string },
): Promise<{ outputFileId: string | null; errorFileId: string | null }> {
  const ids = resultFileIds(batchId);
  const output = await writeOne(store, files, workspaceId, batchId, ids.output, 'batch_output.jsonl', (l) =>
    l.state === 'done' && l.ok === 1 ? l.result : null,
  );
  const errors = await writeOne(store, files, workspaceId, batchId, ids.error, 'batch_errors.jsonl', (l) => {
    if (l.state === 'done') return l.ok === 1 ? null : l.result;
    if (!unfinished) return null;
    const line: BatchOutputLine = { id: `batch_req_${batchId}_${l.line_no}`, custom_id: l.custom_id, response: null, error: unfinished };
    return JSON.stringify(line);
  });
  return { outputFileId: output, errorFileId: errors };
}

type LineRow = Awaited<ReturnType<typeof readLines>>[number];

async function writeOne(
  store: Store,
  files: GatewayFiles,
  workspaceId: string,
  batchId: string,
  fileId: string,
  filename: string,
  pick: (l: LineRow) => string | null,
): Promise<string | null> {
  let count = 0;
  async function* lines() {
    let from = 0;
    for (;;) {
      const page = await readLines(store, batchId, from, 500);
      for (const l of page) {
        const text = pick(l);
        if (text !== null) {
          count++;
          yield Buffer.from(text + '\n');
        }
      }
      if (page.length < 500) return;
      from = page[page.length - 1]!.line_no + 1;
    }
  }
  const bytes = await files.storage.put(fileId, Readable.from(lines()));
  if (count === 0) {
    await files.storage.delete(fileId);
    return null;
  }
  await files.record(workspaceId, fileId, filename, 'batch_output', bytes);
  return fileId;
}
