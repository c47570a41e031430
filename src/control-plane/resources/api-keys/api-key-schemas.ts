import { Type } from 'typebox';
import { IsoTime } from '../../resource/paging.js';

const KeyType = Type.Union([Type.Literal('organisation-service'), Type.Literal('workspace-service'), Type.Literal('workspace-user')]);
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Integer({ minimum: 0 }), Type.Null()]);
const RotationPolicy = Type.Object(
  {
    rotation_period: Type.Optional(Type.Union([Type.Literal('weekly'), Type.Literal('monthly')])),
    next_rotation_at: Type.Optional(Type.String({ format: 'date-time' })),
    key_transition_period_ms: Type.Optional(Type.Integer({ minimum: 30 * 60 * 1000 })),
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
    rotation_policy: Type.Optional(Type.Union([RotationPolicy, Type.Null()])),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    defaults: Type.Optional(Type.Union([ApiKeyDefaults, Type.Null()])),
  },
  { additionalProperties: false },
);

/** `PUT /v1/api-keys/{id}` body. */
export const UpdateApiKey = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    expires_at: Type.Optional(Time),
    rotation_policy: Type.Optional(Type.Union([RotationPolicy, Type.Null()])),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    defaults: Type.Optional(Type.Union([ApiKeyDefaults, Type.Null()])),
  },
  { additionalProperties: false },
);

/** `POST /v1/api-keys/{id}/rotate` body (optional). */
export const RotateApiKey = Type.Optional(Type.Object({ key_transition_period_ms: Type.Optional(Type.Integer({ minimum: 30 * 60 * 1000 })) }, { additionalProperties: false }));

/** A key as answered (never its value or hash). */
export const ApiKeyAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.String(),
  type: KeyType,
  organisation_id: Type.String(),
  workspace_id: Type.Union([Type.String(), Type.Null()]),
  user_id: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  key_hint: Type.String(),
  expires_at: IsoTime,
  rotation_policy: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  defaults: Type.Union([ApiKeyDefaults, Type.Null()]),
  created_at: IsoTime,
  updated_at: IsoTime,
});

/** The answer of a create: the key and its value, shown once. */
export const CreatedApiKey = Type.Object({ ...ApiKeyAnswer.properties, key: Type.String() });

/** The answer of a rotation: the key, its new value and until when the previous one works. */
export const RotatedApiKey = Type.Object({ ...ApiKeyAnswer.properties, key: Type.String(), previous_key_valid_until: IsoTime });
