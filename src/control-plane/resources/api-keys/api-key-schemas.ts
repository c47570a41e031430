import { Type } from 'typebox';
import { IsoTime, MAX_UNIX_SECONDS } from '../../../identity/paging.js';
import { InlineUsageLimitAnswer, InlineUsageLimits } from '../usage-limit-policies/inline-usage-limits.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const KeyType = StringEnum(['organisation-service', 'workspace-service', 'workspace-user']);
const Time = Type.Union([Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS }), Type.String({ format: 'date-time' }), Type.Null()]);
/** A transition period: at least 30 minutes, at most 10 years (the time it ends must stay a storable timestamp). */
const TransitionMs = Type.Integer({ minimum: 30 * 60 * 1000, maximum: 10 * 366 * 24 * 3600 * 1000 });
/** `rotation_policy`: a schedule (`rotation_period`, or a one-off `next_rotation_at` in the future) and the transition of its rotations. */
const RotationPolicy = Type.Object(
  {
    rotation_period: Type.Optional(StringEnum(['weekly', 'monthly'])),
    next_rotation_at: Type.Optional(Type.String({ format: 'date-time' })),
    key_transition_period_ms: Type.Optional(TransitionMs),
  },
  { additionalProperties: false },
);

/** Request defaults of a key (docs/clients.md): its default config, metadata, and whether a request may override the config. */
export const ApiKeyDefaults = Type.Object(
  {
    config_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    allow_config_override: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** `POST /v1/api-keys` body. */
export const CreateApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Optional(KeyType),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    /** The user of a `workspace-user` key: required when a service key creates one; defaults to the calling user. */
    user_id: Type.Optional(Type.String({ minLength: 1 })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    expires_at: Type.Optional(Time),
    rotation_policy: Type.Optional(Nullable(RotationPolicy)),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    defaults: Type.Optional(Nullable(ApiKeyDefaults)),
    /** Budgets of this key alone: each entry is a usage-limit policy on `api_key = <this key>` (docs/usage-limits.md). */
    usage_limits: Type.Optional(InlineUsageLimits),
  },
  { additionalProperties: false },
);

/** `PUT /v1/api-keys/{id}` body. */
export const UpdateApiKey = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    expires_at: Type.Optional(Time),
    rotation_policy: Type.Optional(Nullable(RotationPolicy)),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    defaults: Type.Optional(Nullable(ApiKeyDefaults)),
    /** Budgets of this key alone: each entry is a usage-limit policy on `api_key = <this key>` (docs/usage-limits.md). */
    usage_limits: Type.Optional(InlineUsageLimits),
  },
  { additionalProperties: false },
);

/** `POST /v1/api-keys/{id}/rotate` body (optional): the transition, at least 30 minutes. */
export const RotateApiKey = Type.Optional(
  Type.Object({ key_transition_period_ms: Type.Optional(TransitionMs) }, { additionalProperties: false }),
);

/** `POST /v1/api-keys/{id}/reveal` body: none (an empty object is accepted). */
export const RevealApiKey = Type.Optional(Type.Object({}, { additionalProperties: false }));

/** A key as answered (never its value or hash). */
export const ApiKeyAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.String(),
  type: KeyType,
  organisation_id: Type.String(),
  workspace_id: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
  scopes: Type.Array(Type.String()),
  status: StringEnum(['active', 'revoked']),
  key_hint: Type.String(),
  /** `api`: made by `POST /v1/api-keys`; `auto`: made when its user joined the workspace. */
  creation_mode: StringEnum(['api', 'auto']),
  expires_at: IsoTime,
  /** As set, with `next_rotation_at`: when the schedule rotates the key next (null when never). */
  rotation_policy: Nullable(Type.Record(Type.String(), Type.Unknown())),
  /** Until when the value before the last rotation still works (null: no transition). */
  key_transition_expires_at: IsoTime,
  /** When the key last authenticated a request (written every few seconds; null: never). */
  last_used_at: IsoTime,
  metadata: Type.Record(Type.String(), Type.Unknown()),
  defaults: Nullable(ApiKeyDefaults),
  /** The key's inline usage limits: the policies its `usage_limits` made, with their ids and windows. */
  usage_limits: Type.Array(InlineUsageLimitAnswer),
  created_at: IsoTime,
  updated_at: IsoTime,
});

/** The answer of a create: the key and its value, shown once. */
export const CreatedApiKey = Type.Object({ ...ApiKeyAnswer.properties, key: Type.String() });

/** The answer of a rotation: the key (same id), its new value, and until when the previous one works (`key_transition_expires_at`). */
export const RotatedApiKey = Type.Object({ ...ApiKeyAnswer.properties, key: Type.String() });

/** The answer of a reveal: the pending value, shown once. */
export const RevealedApiKey = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  key: Type.String(),
  key_transition_expires_at: IsoTime,
});
