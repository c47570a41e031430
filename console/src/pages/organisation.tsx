import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { BodyOf } from '../api/types';
import { ErrorBanner, Field, PageHeader, Section, Time, submit } from '../components/ui';
import { JwtSettings, ScimSettings, SsoSettings } from './organisation-identity';
import { useLoad } from '../lib/use-load';

type Settings = BodyOf<'/v1/organisation/settings', 'put'>;

const TOGGLES: Array<[keyof Settings, string]> = [
  ['user_api_key_auto_create', 'Create a user key for each new workspace member'],
  ['membersViewAllData', 'Members see all logs of their workspace'],
  ['managersViewAllData', 'Managers see all logs of their workspace'],
  ['organisationAdminsViewLogs', 'Organisation admins see request and response bodies'],
  ['organisationAdminsViewLogMetadata', 'Organisation admins see log metadata'],
  ['managersWriteWsIntegrations', 'Managers may change workspace integrations'],
  ['managersWriteWsMcpIntegrations', 'Managers may change workspace MCP integrations'],
  ['managersWriteMcpServers', 'Managers may change MCP servers'],
];

/** Organisation settings (owners and admins): the toggles of control-plane.md §2, rotation and session length. */
export function OrganisationPage() {
  const org = useLoad(() => unwrap(api.GET('/v1/organisation')), []);
  const [draft, setDraft] = useState<Settings>({});
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (org.value) setDraft(org.value.settings as Settings);
  }, [org.value]);
  const save = async () => {
    setError(undefined);
    setSaved(false);
    try {
      const body: Settings = {
        ...Object.fromEntries(TOGGLES.map(([k]) => [k, draft[k]])),
        user_api_key_rotation_period: draft.user_api_key_rotation_period ?? null,
        session_settings: { max_session_ttl: draft.session_settings?.max_session_ttl },
      };
      await unwrap(api.PUT('/v1/organisation/settings', { body }));
      setSaved(true);
      org.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <>
      <PageHeader title={`Organisation ${org.value?.name ?? ''}`} />
      <ErrorBanner error={org.error ?? error} />
      {org.value && (
        <>
          <p class="muted">
            <code>{org.value.slug}</code> · created <Time value={org.value.created_at} />
          </p>
          <Section title="Settings" id="settings">
            <form onSubmit={submit(save)} aria-label="organisation settings">
              <fieldset>
                <legend>Data and permissions</legend>
                {TOGGLES.map(([k, label]) => (
                  <label class="check">
                    <input type="checkbox" name={k} checked={draft[k] === true} onChange={() => setDraft({ ...draft, [k]: !draft[k] })} />{' '}
                    {label}
                  </label>
                ))}
              </fieldset>
              <Field label="User key rotation">
                <select
                  name="user_api_key_rotation_period"
                  value={draft.user_api_key_rotation_period ?? ''}
                  onChange={(e) =>
                    setDraft({
                      ...draft,
                      user_api_key_rotation_period: ((e.target as HTMLSelectElement).value ||
                        null) as Settings['user_api_key_rotation_period'],
                    })
                  }
                >
                  <option value="">not enforced</option>
                  <option value="weekly">weekly</option>
                  <option value="monthly">monthly</option>
                </select>
              </Field>
              <Field label="Longest console session (seconds)" hint="At least 900.">
                <input
                  name="max_session_ttl"
                  type="number"
                  min={900}
                  value={draft.session_settings?.max_session_ttl ?? 86400}
                  onInput={(e) =>
                    setDraft({ ...draft, session_settings: { max_session_ttl: Number((e.target as HTMLInputElement).value) } })
                  }
                />
              </Field>
              <div class="actions">
                <button type="submit" class="primary">
                  Save settings
                </button>
                {saved && (
                  <span role="status" class="ok-text">
                    Saved.
                  </span>
                )}
              </div>
            </form>
          </Section>
          <SsoSettings />
          <JwtSettings />
          <ScimSettings />
        </>
      )}
    </>
  );
}
