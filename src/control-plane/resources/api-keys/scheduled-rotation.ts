import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import type { Runtime } from '../../../runtime/runtime.js';
import type { RuntimeChange } from '../../../kernel/runtime-change.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import type { ScheduledJob } from '../../../foundation/lib/scheduler.js';
import type { SecretBox } from '../../../foundation/lib/secret-box.js';
import { recordRuntimeChange, type Store } from '../../../infra/store/store.js';
import { claimScheduledRotation, listDueRotations, type ApiKeyRecord } from '../../../infra/store/repos/api-keys.js';
import { writeSystemAudit } from '../../resource/audit.js';
import { keyHint, newKeyValue } from './key-value.js';
import { followingRotationAt, transitionMs, type RotationPolicy } from './rotation-schedule.js';

/** What the scheduled rotation needs. */
export interface ScheduledRotationDeps {
  store: Store;
  runtime: Runtime;
  secrets: SecretBox;
  apiKeyPrefix: string;
  now(): number;
}

/** Due keys handled per run (the rest wait for the next run, one interval later). */
const BATCH = 100;

/**
 * Rotates one due key if this replica wins its claim: in one transaction, the compare-and-set on
 * `next_rotation_at` (new value in, old value kept for the policy's transition, the new value sealed
 * for `reveal`, the next rotation time set), the audit entry `api_key.rotate` (actor system,
 * `rotation_mode: "scheduled"`) and the runtime change. Returns whether it rotated.
 */
export async function rotateDueKey(deps: ScheduledRotationDeps, k: ApiKeyRecord): Promise<boolean> {
  const due = k.next_rotation_at;
  if (due === null || due === undefined) return false;
  const now = deps.now();
  const policy = k.rotation_policy as RotationPolicy | null;
  const transition = transitionMs(policy);
  const value = newKeyValue(deps.apiKeyPrefix);
  const nextRotationAt = followingRotationAt(policy, now);
  const changes: RuntimeChange[] = [{ section: API_KEYS_SECTION, workspaceId: k.workspace_id }];
  const rotated = await deps.store.db.transaction().execute(async (trx) => {
    const rotation = {
      keyHash: sha256Hex(value),
      keyHint: keyHint(value, deps.apiKeyPrefix),
      transitionEndsAt: now + transition,
      pendingCiphertext: deps.secrets.encrypt(value, k.id),
      nextRotationAt,
    };
    if (!(await claimScheduledRotation(trx, k.id, due, rotation, now))) return false;
    await writeSystemAudit(trx, k.organisation_id, now, {
      action: 'api_key.rotate',
      resourceType: 'api_key',
      resourceId: k.id,
      workspaceId: k.workspace_id,
      details: {
        rotation_mode: 'scheduled',
        key_transition_period_ms: transition,
        due_at: new Date(due).toISOString(),
        next_rotation_at: nextRotationAt === null ? null : new Date(nextRotationAt).toISOString(),
      },
    });
    await recordRuntimeChange(trx, changes);
    return true;
  });
  if (rotated) await deps.runtime.committed(changes);
  return rotated;
}

/** The scheduler job: every `everyMs`, rotates the keys that are due (each exactly once across replicas). */
export function scheduledRotationJob(deps: ScheduledRotationDeps, everyMs: number): ScheduledJob {
  return {
    name: 'api-key-rotation',
    everyMs,
    async run() {
      for (const k of await listDueRotations(deps.store.db, deps.now(), BATCH)) await rotateDueKey(deps, k);
    },
  };
}
