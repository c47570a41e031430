import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, unwrap } from '../api/client';
import type { Session } from '../api/types';
import { ErrorBanner, Field, submit } from '../components/ui';

const SSO_LOGIN = '/v1/auth/sso/login';

/**
 * Whether this gateway has SSO sign-in: its login route exists (a gateway without it answers 404
 * `not_found` for an unknown route). The button shows only then.
 */
async function ssoAvailable(): Promise<boolean> {
  try {
    const res = await fetch(SSO_LOGIN, { redirect: 'manual', credentials: 'same-origin' });
    return res.status !== 404;
  } catch {
    return false;
  }
}

/** Sign-in: a user API key (`POST /v1/auth/login`), or SSO by email when the gateway offers it. */
export function SignIn({ onSignedIn }: { onSignedIn(s: Session): void }) {
  const [key, setKey] = useState('');
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState(false);
  useEffect(() => {
    // When the first screen is up (the load budget in docs/console.md is measured to this mark).
    performance.mark('console:sign-in');
    void ssoAvailable().then(setSso);
  }, []);

  const login = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await unwrap(api.POST('/v1/auth/login', { body: { api_key: key.trim() } })));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const ssoLogin = async () => {
    setError(undefined);
    const url = `${SSO_LOGIN}?email=${encodeURIComponent(email.trim())}`;
    // A redirect means the identity provider takes over; anything else is the gateway's error.
    const res = await fetch(url, { redirect: 'manual', credentials: 'same-origin' });
    if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
      location.assign(url);
      return;
    }
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    setError(body?.error?.message ?? `${res.status} ${res.statusText}`);
  };

  return (
    <main class="sign-in" id="main">
      <h1>AI gateway console</h1>
      <form class="card" onSubmit={submit(login)} aria-label="sign in with an API key">
        <h2>Sign in with your API key</h2>
        <Field label="User API key" hint="A workspace-user key; the console keeps a session cookie, never the key.">
          <input
            name="api_key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
        </Field>
        <button type="submit" class="primary" disabled={busy || !key.trim()}>
          Sign in
        </button>
      </form>
      {sso && (
        <form class="card" onSubmit={submit(ssoLogin)} aria-label="sign in with SSO">
          <h2>Single sign-on</h2>
          <Field label="Work email">
            <input
              name="email"
              type="email"
              autocomplete="email"
              required
              value={email}
              onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
            />
          </Field>
          <button type="submit" disabled={!email.includes('@')}>
            Sign in with SSO
          </button>
        </form>
      )}
      <ErrorBanner error={error} />
    </main>
  );
}
