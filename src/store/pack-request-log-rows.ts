import type { RequestLogsTable as RequestLogRow } from './schema.js';
import { COLUMNS, rowFromValues, rowValues } from './repos/request-log-columns.js';

/**
 * The request log's rows as one byte buffer, for the hand-over to the log's SQLite thread
 * (`request-log-worker.ts`): the buffer is transferred, not copied, and the thread reads the rows back with
 * `unpackRequestLogRows`.
 *
 * Why not `postMessage(rows)`: its structured clone wrote every row's 34 member names with its values and
 * built each row again in the thread member by member, names internalised one by one. In CPU profiles of
 * the benchmark's production instance the main thread's part alone was ~7 µs per logged request under load,
 * the largest single part of what the request log costs (bench/README.md, session 24). Here each row is its
 * values in `COLUMNS` order, each a tag byte and then nothing (null), a float64 (a number) or a uint32 byte
 * length and UTF-8 (a string), little-endian; the buffer starts with the row count (uint32).
 */

const NULL = 0;
const NUMBER = 1;
const STRING = 2;

const WIDTH = COLUMNS.length;
const scratch: unknown[] = new Array(WIDTH);

/**
 * The rows packed into a buffer of their own (transferable), or undefined when a value is neither null, a
 * number nor a string (a bug where the row was built): such a batch is cloned as it is, and the store refuses
 * it as it would have.
 */
export function packRequestLogRows(rows: readonly RequestLogRow[]): ArrayBuffer | undefined {
  let buf = Buffer.allocUnsafeSlow(Math.max(256, rows.length * 768));
  let view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let pos = 4;
  const room = (n: number): void => {
    if (pos + n <= buf.length) return;
    let size = buf.length * 2;
    while (size < pos + n) size *= 2;
    const grown = Buffer.allocUnsafeSlow(size);
    buf.copy(grown, 0, 0, pos);
    buf = grown;
    view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  };
  for (let r = 0; r < rows.length; r++) {
    rowValues(rows[r]!, scratch, 0);
    for (let c = 0; c < WIDTH; c++) {
      const v = scratch[c];
      if (v === null) {
        room(1);
        buf[pos++] = NULL;
      } else if (typeof v === 'number') {
        room(9);
        buf[pos] = NUMBER;
        view.setFloat64(pos + 1, v, true);
        pos += 9;
      } else if (typeof v === 'string') {
        // At most three bytes of UTF-8 per UTF-16 unit (a surrogate pair: four bytes for two units).
        room(5 + v.length * 3);
        buf[pos] = STRING;
        const written = buf.write(v, pos + 5, 'utf8');
        view.setUint32(pos + 1, written, true);
        pos += 5 + written;
      } else {
        return undefined;
      }
    }
  }
  view.setUint32(0, rows.length, true);
  // Its own memory (allocUnsafeSlow), so the whole of it can be handed over; a copy of the used part when that is much smaller.
  return pos * 2 < buf.length ? buf.buffer.slice(buf.byteOffset, buf.byteOffset + pos) : (buf.buffer as ArrayBuffer);
}

/** The rows of a `packRequestLogRows` buffer, each with every column (defaults as `rowValues` gave them). */
export function unpackRequestLogRows(bytes: ArrayBuffer): RequestLogRow[] {
  const buf = Buffer.from(bytes);
  const view = new DataView(bytes);
  const count = view.getUint32(0, true);
  const rows: RequestLogRow[] = new Array(count);
  const values: unknown[] = new Array(WIDTH);
  let pos = 4;
  for (let r = 0; r < count; r++) {
    for (let c = 0; c < WIDTH; c++) {
      const tag = buf[pos]!;
      if (tag === NULL) {
        values[c] = null;
        pos += 1;
      } else if (tag === NUMBER) {
        values[c] = view.getFloat64(pos + 1, true);
        pos += 9;
      } else if (tag === STRING) {
        const length = view.getUint32(pos + 1, true);
        values[c] = buf.toString('utf8', pos + 5, pos + 5 + length);
        pos += 5 + length;
      } else {
        throw new Error(`packed request-log rows: unknown tag ${tag} at byte ${pos}`);
      }
    }
    rows[r] = rowFromValues(values, 0);
  }
  return rows;
}
