import { isObject } from '../../foundation/lib/json.js';
import type { A2AVersion } from './a2a-methods.js';

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * The task a result (of a send, or one event of a stream) names, in either version's shape: v1.0
 * wraps it (`{task}`, `{message}`, `{statusUpdate}`, `{artifactUpdate}`), v0.3 tags it (`kind`:
 * `task`, `message`, `status-update`, `artifact-update`).
 * @see https://a2a-protocol.org/v1.0.0/specification/#32-stream-response
 */
export function taskIdOfResult(version: A2AVersion, result: unknown): string | undefined {
  if (!isObject(result)) return undefined;
  if (version === '1.0') {
    if (isObject(result.task)) return str(result.task.id);
    if (isObject(result.message)) return str(result.message.taskId);
    if (isObject(result.statusUpdate)) return str(result.statusUpdate.taskId);
    if (isObject(result.artifactUpdate)) return str(result.artifactUpdate.taskId);
    return undefined;
  }
  return result.kind === 'task' ? str(result.id) : str(result.taskId);
}

/**
 * The tasks a request names: `id` of a get or cancel; of a send, the task its message continues
 * (`message.taskId`) and the tasks it references for context (`message.referenceTaskIds`).
 */
export function taskIdsOfParams(kind: 'send' | 'stream' | 'get' | 'cancel', params: Record<string, unknown>): string[] {
  if (kind === 'get' || kind === 'cancel') {
    const id = str(params.id);
    return id ? [id] : [];
  }
  if (!isObject(params.message)) return [];
  const refs = Array.isArray(params.message.referenceTaskIds) ? params.message.referenceTaskIds : [];
  return [params.message.taskId, ...refs].map(str).filter((id): id is string => id !== undefined);
}

/** The skill a send names (`metadata.skillId` of the request or of its message; `skill_id` too). */
export function skillOfParams(params: Record<string, unknown>): string | undefined {
  for (const holder of [params.metadata, isObject(params.message) ? params.message.metadata : undefined]) {
    if (!isObject(holder)) continue;
    const id = str(holder.skillId) ?? str(holder.skill_id);
    if (id) return id;
  }
  return undefined;
}
