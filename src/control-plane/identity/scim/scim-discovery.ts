import { MAX_RESULTS } from './scim-query.js';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './scim-user-shape.js';
import { GROUP_SCHEMA } from './scim-group-shape.js';

const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';

type Attr = {
  name: string;
  type: string;
  multiValued?: boolean;
  required?: boolean;
  mutability?: string;
  uniqueness?: string;
  subAttributes?: Attr[];
};

function attribute(a: Attr): Record<string, unknown> {
  return {
    name: a.name,
    type: a.type,
    multiValued: a.multiValued ?? false,
    required: a.required ?? false,
    caseExact: false,
    mutability: a.mutability ?? 'readWrite',
    returned: 'default',
    uniqueness: a.uniqueness ?? 'none',
    ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attribute) } : {}),
  };
}

const multi = (name: string): Attr => ({
  name,
  type: 'complex',
  multiValued: true,
  subAttributes: [
    { name: 'value', type: 'string' },
    { name: 'type', type: 'string' },
    { name: 'primary', type: 'boolean' },
  ],
});

const SCHEMAS = [
  {
    id: USER_SCHEMA,
    name: 'User',
    description: 'A user of the organisation',
    attributes: [
      { name: 'userName', type: 'string', required: true, uniqueness: 'server' },
      { name: 'externalId', type: 'string' },
      {
        name: 'name',
        type: 'complex',
        subAttributes: ['formatted', 'givenName', 'familyName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((n) => ({
          name: n,
          type: 'string',
        })),
      },
      ...['displayName', 'nickName', 'profileUrl', 'title', 'userType', 'preferredLanguage', 'locale', 'timezone'].map((n) => ({
        name: n,
        type: 'string',
      })),
      { name: 'active', type: 'boolean' },
      multi('emails'),
      multi('phoneNumbers'),
      multi('roles'),
      {
        name: 'groups',
        type: 'complex',
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [
          { name: 'value', type: 'string' },
          { name: 'display', type: 'string' },
        ],
      },
    ].map(attribute),
  },
  {
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A group; mapped groups grant workspace memberships (POST /v1/scim/workspaces)',
    attributes: [
      { name: 'displayName', type: 'string', required: true, uniqueness: 'server' },
      { name: 'externalId', type: 'string' },
      {
        name: 'members',
        type: 'complex',
        multiValued: true,
        subAttributes: [
          { name: 'value', type: 'string' },
          { name: 'display', type: 'string' },
        ],
      },
    ].map(attribute),
  },
  {
    id: ENTERPRISE_SCHEMA,
    name: 'EnterpriseUser',
    description: 'Enterprise user extension (kept and answered back)',
    attributes: ['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map((n) =>
      attribute({ name: n, type: 'string' }),
    ),
  },
];

/** `GET /ServiceProviderConfig`: PATCH and filters yes; bulk, sort, ETags and password changes no. */
export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: 'https://github.com/',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      { type: 'oauthbearertoken', name: 'OAuth Bearer Token', description: 'A SCIM token of POST /v1/scim/tokens', primary: true },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

/** The schema resources, each with its `meta`. */
export function schemaResources(base: string) {
  return SCHEMAS.map((s) => ({ schemas: [SCHEMA_SCHEMA], ...s, meta: { resourceType: 'Schema', location: `${base}/Schemas/${s.id}` } }));
}

/** The resource types: User (with the enterprise extension) and Group. */
export function resourceTypes(base: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}
