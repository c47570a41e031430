import type { paths } from './schema';

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type Ok<O> = O extends { responses: infer R }
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer A }
      ? Json<A>
      : never
  : never;

/** The JSON answer of a successful call of `M` on `P`, from the generated schema. */
export type AnswerOf<P extends keyof paths, M extends keyof paths[P]> = Ok<paths[P][M]>;

/** The JSON body of a call of `M` on `P`. */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Session = AnswerOf<'/v1/auth/session', 'get'>;
export type LogRow = AnswerOf<'/v1/logs/{id}', 'get'>;
export type ApiKey = AnswerOf<'/v1/api-keys/{id}', 'get'>;
export type Config = AnswerOf<'/v1/configs/{id}', 'get'>;
export type Workspace = AnswerOf<'/v1/workspaces/{id}', 'get'>;
export type Organisation = AnswerOf<'/v1/organisation', 'get'>;
