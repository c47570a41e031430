import type { Store } from '../store.js';
import type { ResponsesTable } from '../schema.js';
import type { ResponseItem, ResponseObject } from '../../../foundation/spec/responses.js';

/** A stored response: the object GET returns, the input items of its request, and how it was produced. */
export interface StoredResponse {
  id: string;
  workspace_id: string;
  /** `gateway`: run over chat completions by the gateway; `native`: forwarded to a host serving /responses. */
  mode: 'gateway' | 'native';
  provider: string | null;
  previous_response_id: string | null;
  status: ResponseObject['status'];
  response: ResponseObject;
  /** The request's own input items (without earlier turns), each with an id. */
  input_items: ResponseItem[];
  created_at: number;
}

/** Stores a response; a second write of the same id replaces the first (a stream that finished). */
export async function saveResponse(store: Store, r: StoredResponse): Promise<void> {
  const row = toRow(r);
  await store.db
    .insertInto('responses')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ status: row.status, response: row.response, input_items: row.input_items, provider: row.provider }),
    )
    .execute();
}

/** A response of this workspace by id, or undefined. */
export async function getResponse(store: Store, id: string, workspaceId: string): Promise<StoredResponse | undefined> {
  const row = await store.db
    .selectFrom('responses')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row && fromRow(row);
}

/** Deletes a response of this workspace; true when it existed. */
export async function deleteResponse(store: Store, id: string, workspaceId: string): Promise<boolean> {
  const res = await store.db.deleteFrom('responses').where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

function toRow(r: StoredResponse): ResponsesTable {
  return { ...r, response: JSON.stringify(r.response), input_items: JSON.stringify(r.input_items) };
}

function fromRow(r: ResponsesTable): StoredResponse {
  return {
    ...r,
    mode: r.mode as StoredResponse['mode'],
    status: r.status as StoredResponse['status'],
    response: JSON.parse(r.response),
    input_items: JSON.parse(r.input_items),
    created_at: Number(r.created_at),
  };
}
