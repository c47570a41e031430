import type { Readable } from 'node:stream';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { prefixedId } from '../../../foundation/lib/ids.js';
import type { Clock } from '../../../foundation/lib/clock.js';
import type { FileObject, FilePurpose } from '../../../foundation/spec/batches.js';
import type { Store } from '../../../infra/store/store.js';
import { deleteFileRow, getFile, insertFile, type FileRow } from '../../../infra/store/repos/files.js';
import type { FileStorage } from './file-storage.js';

/** Prefix of the ids of files the gateway stores itself; any other id names a provider's file. */
export const GATEWAY_FILE_PREFIX = 'file-gw';

/** True when the id names a gateway-stored file. */
export function isGatewayFileId(id: string): boolean {
  return id.startsWith(GATEWAY_FILE_PREFIX);
}

/** The file object of a stored row (`created_at` in Unix seconds). */
export function toFileObject(row: FileRow): FileObject {
  return {
    id: row.id,
    object: 'file',
    bytes: row.bytes,
    created_at: Math.floor(row.created_at / 1000),
    filename: row.filename,
    purpose: row.purpose as FilePurpose,
    status: row.status as FileObject['status'],
  };
}

/**
 * Files the gateway stores itself: content in a {@link FileStorage}, metadata in the store, ids
 * `file-gw…`. Used by the files routes and by gateway-managed batches (input, output and error files).
 */
export class GatewayFiles {
  constructor(
    private readonly store: Store,
    readonly storage: FileStorage,
    private readonly clock: Clock,
  ) {}

  /** A new gateway file id. */
  newId(): string {
    return prefixedId(GATEWAY_FILE_PREFIX, 22);
  }

  /** Streams content into storage under `id` and records the file; returns its row. */
  async save(workspaceId: string, id: string, filename: string, purpose: FilePurpose, body: Readable): Promise<FileRow> {
    const bytes = await this.storage.put(id, body);
    return this.record(workspaceId, id, filename, purpose, bytes);
  }

  /** Records a file whose content is already in storage under `id`. */
  async record(workspaceId: string, id: string, filename: string, purpose: FilePurpose, bytes: number): Promise<FileRow> {
    const row: FileRow = {
      id,
      workspace_id: workspaceId,
      backend: 'gateway',
      provider: null,
      virtual_key: null,
      filename,
      purpose,
      bytes,
      status: 'processed',
      storage_key: id,
      created_at: this.clock.now(),
    };
    await insertFile(this.store, row);
    return row;
  }

  /** A gateway file of this workspace; 404 `not_found` when unknown. */
  async get(workspaceId: string, id: string): Promise<FileRow> {
    const row = await getFile(this.store, id, workspaceId);
    if (!row || row.backend !== 'gateway') throw new GatewayError('not_found', `No such file: '${id}'.`, { param: 'file_id' });
    return row;
  }

  /** The content of a gateway file as a stream. */
  async open(workspaceId: string, id: string): Promise<Readable> {
    const row = await this.get(workspaceId, id);
    const stream = await this.storage.get(row.storage_key ?? row.id);
    if (!stream) throw new GatewayError('not_found', `The content of file '${id}' is gone.`, { param: 'file_id' });
    return stream;
  }

  /** Deletes a gateway file and its content. */
  async remove(workspaceId: string, id: string): Promise<void> {
    const row = await this.get(workspaceId, id);
    await deleteFileRow(this.store, id, workspaceId);
    await this.storage.delete(row.storage_key ?? row.id);
  }
}
