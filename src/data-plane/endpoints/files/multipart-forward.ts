import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomId } from '../../../foundation/lib/ids.js';

/** One part of an incoming multipart upload, as @fastify/multipart yields it. */
export type IncomingPart =
  | { type: 'file'; fieldname: string; filename: string; mimetype: string; file: Readable }
  | { type: 'field'; fieldname: string; value: unknown };

function quote(s: string): string {
  return s.replace(/["\r\n\\]/g, '_');
}

/**
 * Re-encodes multipart parts into a new multipart body as they arrive: file content is piped through
 * (with backpressure), never buffered whole. `body` is the stream to send upstream; `pump` writes
 * every part and ends it (rejects if writing fails, e.g. the upstream closed early).
 */
export function multipartForward(): { body: PassThrough; contentType: string; pump(parts: AsyncIterable<IncomingPart>): Promise<void> } {
  const boundary = `----gateway${randomId(24)}`;
  const body = new PassThrough();
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (body.destroyed) return reject(new Error('upstream body closed'));
      body.write(text, (err) => (err ? reject(err) : resolve()));
    });
  return {
    body,
    contentType: `multipart/form-data; boundary=${boundary}`,
    async pump(parts) {
      for await (const part of parts) {
        if (part.type === 'file') {
          await write(
            `--${boundary}\r\nContent-Disposition: form-data; name="${quote(part.fieldname)}"; filename="${quote(part.filename)}"\r\nContent-Type: ${part.mimetype || 'application/octet-stream'}\r\n\r\n`,
          );
          await pipeline(part.file, body, { end: false });
          await write('\r\n');
        } else {
          await write(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(part.fieldname)}"\r\n\r\n${String(part.value)}\r\n`);
        }
      }
      await write(`--${boundary}--\r\n`);
      body.end();
    },
  };
}
