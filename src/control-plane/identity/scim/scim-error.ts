/** The SCIM error message schema (RFC 7644 §3.12). */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A `scimType` of RFC 7644 §3.12. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

/**
 * A failure of a `/v1/scim/v2` request, answered in the SCIM error shape
 * (`{schemas: [Error], status: "<code>", scimType?, detail}`) rather than the gateway's: the one
 * place the API does not use the decisions.md error shape, because SCIM clients parse this one.
 */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
    this.name = 'ScimError';
  }

  /** The SCIM error body. */
  toBody(): { schemas: string[]; status: string; scimType?: ScimType; detail: string } {
    return {
      schemas: [ERROR_SCHEMA],
      status: String(this.status),
      ...(this.scimType ? { scimType: this.scimType } : {}),
      detail: this.message,
    };
  }
}

/** 400 `invalidValue`. */
export function invalidValue(detail: string): ScimError {
  return new ScimError(400, detail, 'invalidValue');
}

/** 400 `invalidSyntax`. */
export function invalidSyntax(detail: string): ScimError {
  return new ScimError(400, detail, 'invalidSyntax');
}

/** 404 naming the resource. */
export function notFound(what: string, id: string): ScimError {
  return new ScimError(404, `${what} '${id}' not found.`);
}
