/** A JSON-RPC 2.0 request id (absent on a notification: answered with `null`). */
export type JsonRpcId = string | number | null;

/** JSON-RPC and A2A error codes the gateway answers with. @see https://a2a-protocol.org/v1.0.0/specification/ */
export const RPC = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  versionNotSupported: -32009,
} as const;

/** A JSON-RPC error answer. */
export interface JsonRpcError {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: Record<string, unknown> };
}

/** Builds a JSON-RPC error answer; `data` carries the gateway's error code where there is one. */
export function rpcError(id: JsonRpcId, code: number, message: string, data?: Record<string, unknown>): JsonRpcError {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } };
}

/** The id of a request body, when it is a valid JSON-RPC id. */
export function idOf(body: unknown): JsonRpcId {
  if (typeof body !== 'object' || body === null || !('id' in body)) return null;
  const id = body.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
