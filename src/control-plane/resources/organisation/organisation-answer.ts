import { Type } from 'typebox';
import { organisationSettingsView } from '../../../kernel/settings.js';
import type { Organisation } from '../../../infra/store/repos/organisations.js';
import { iso } from '../../../identity/paging.js';
import { OrganisationSettingsAnswer } from './settings-schema.js';

/** An organisation as the admin API answers it (control-plane.md §2). */
export const OrganisationAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('organisation'),
  name: Type.String(),
  slug: Type.String(),
  settings: OrganisationSettingsAnswer,
  created_at: Type.String(),
});

/** The answer of an organisation: its settings with their defaults filled in. */
export function presentOrganisation(o: Organisation) {
  return {
    id: o.id,
    object: 'organisation' as const,
    name: o.name,
    slug: o.slug,
    settings: organisationSettingsView(o.settings),
    created_at: iso(o.created_at)!,
  };
}
