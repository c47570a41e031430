import { Type, type TSchema } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { getPrompt, listPromptVersions, publishPromptVersion, type PromptKind } from '../../../features/prompts/prompts-repo.js';
import { defineAction, type ResourceAction } from '../../resource/define-resource.js';
import { LABEL, promptAt, presentVersion, type PromptAt } from './prompt-record.js';

const MakeDefaultBody = Type.Object({ version: Type.Integer({ minimum: 1, maximum: 2147483647 }) }, { additionalProperties: false });

/** `GET …/{id}/versions`: every version of a prompt or partial, newest first, with `published`. */
export function versionsAction(kind: PromptKind, answer: TSchema): ResourceAction<PromptAt> {
  return defineAction<PromptAt, TSchema, TSchema>({
    verb: 'versions',
    method: 'GET',
    suffix: '/versions',
    permission: 'prompts.read',
    write: false,
    summary: `List the versions of a ${LABEL[kind]}, newest first`,
    answer,
    async run(ctx, { prompt }) {
      const versions = await listPromptVersions(ctx.db, ctx.scope, prompt.id);
      return { answer: { object: 'list', data: versions.map((v) => presentVersion(prompt, v)), total: versions.length } };
    },
  });
}

/**
 * `PUT …/{id}/makeDefault` `{version}`: publishes an existing version (404 naming `version` for
 * another); audited as `<resource>.publish`.
 */
export function makeDefaultAction(kind: PromptKind, answer: TSchema, present: (p: PromptAt) => unknown): ResourceAction<PromptAt> {
  return defineAction<PromptAt, typeof MakeDefaultBody, TSchema>({
    verb: 'publish',
    method: 'PUT',
    suffix: '/makeDefault',
    permission: 'prompts.write',
    write: true,
    summary: `Publish a version of a ${LABEL[kind]}`,
    body: MakeDefaultBody,
    answer,
    async run(ctx, { prompt }, { version }) {
      if (!(await publishPromptVersion(ctx.db, ctx.scope, prompt.id, version, ctx.now))) {
        throw new GatewayError('not_found', `The ${LABEL[kind]} '${prompt.slug}' has no version ${version}.`, { param: 'version' });
      }
      const updated = (await getPrompt(ctx.db, ctx.scope, kind, prompt.id)) ?? prompt;
      const record = await promptAt(ctx.db, ctx.scope, updated, version);
      return { answer: present(record), record, details: { version } };
    },
  });
}
