/** Cookies of one site, as a browser keeps them across redirects. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1);
      if (!value || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** fetch without following redirects, sending and keeping `jar`'s cookies. */
export async function go(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (jar.cookies.size) headers.set('cookie', jar.header());
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.take(res);
  return res;
}

/** The fields of the one form on an HTML page (action, hidden and pre-filled inputs). */
export function formOf(html: string): { action: string; fields: Record<string, string> } {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form in page: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(m[0])?.[1];
    if (name) fields[name] = /value="([^"]*)"/.exec(m[0])?.[1] ?? '';
  }
  return { action: action.replace(/&amp;/g, '&'), fields };
}

/**
 * Completes an authorization URL of an `oidc-provider` server as a browser would: its development login
 * form (as `accountId`) and consent form, up to the redirect to `callbackPrefix`, which is returned (not followed).
 */
export async function authorizeAs(authorizationUrl: string, accountId: string, callbackPrefix: string): Promise<string> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  for (let step = 0; step < 12; step++) {
    if (url.startsWith(callbackPrefix)) return url;
    const res = await go(jar, url);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`authorization step answered ${res.status}: ${html.slice(0, 500)}`);
    const form = formOf(html);
    if (form.fields.prompt === 'login') {
      form.fields.login = accountId;
      form.fields.password = 'any';
    }
    const posted = await go(jar, new URL(form.action, url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form.fields).toString(),
    });
    if (posted.status < 300 || posted.status >= 400)
      throw new Error(`form post answered ${posted.status}: ${(await posted.text()).slice(0, 500)}`);
    url = new URL(posted.headers.get('location')!, url).href;
  }
  throw new Error('the authorization did not reach the callback');
}
