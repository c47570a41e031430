/**
 * default.validUrls {onlyDNS (default false)}: finds http, https and ftp URLs in the text and passes
 * when every one is syntactically valid (WHATWG URL parse, a host that is an IP address, `localhost`
 * or a domain with valid labels and an alphabetic TLD). With `onlyDNS: true` each host must also
 * resolve (node:dns lookup, DNS_TIMEOUT_MS per host). Text without URLs passes.
 * Reads the request text before the request and the response text after it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BOTH_PHASES, defineCheck, textFor, type CheckDefinition } from '../check.js';
import { ParamReader } from '../params.js';

/** Milliseconds allowed for one host name lookup. */
export const DNS_TIMEOUT_MS = 3000;
const MAX_HOSTS = 20;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** URL-looking substrings of `text`, with trailing punctuation removed. */
export function findUrls(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(?:https?|ftp):\/\/[^\s<>"'`]+/giu)) {
    let url = m[0];
    for (;;) {
      const last = url[url.length - 1];
      if (/[.,;:!?*_~]/.test(last)) url = url.slice(0, -1);
      else if (last === ')' && count(url, '(') < count(url, ')')) url = url.slice(0, -1);
      else if (last === ']' && count(url, '[') < count(url, ']')) url = url.slice(0, -1);
      else break;
    }
    out.push(url);
  }
  return out;
}

function count(s: string, ch: string): number {
  return s.split(ch).length - 1;
}

/** True when `raw` parses and its host is an IP address, `localhost` or a well-formed domain name. */
export function isValidUrl(raw: string): boolean {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  const host = u.hostname;
  if (!host) return false;
  if (host.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || host === 'localhost') return true;
  const labels = host.replace(/\.$/, '').split('.');
  if (labels.length < 2) return false;
  return labels.every((l) => LABEL.test(l)) && TLD.test(labels[labels.length - 1]);
}

/** Resolves a host name; rejects when it does not resolve. */
export type HostLookup = (host: string) => Promise<unknown>;

async function resolves(lookup: HostLookup, host: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), DNS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      lookup(host).then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Builds the check with an injectable lookup (tests); `validUrls` uses node:dns. */
export function createValidUrls(lookup: HostLookup): CheckDefinition {
  return defineCheck({
    id: 'default.validUrls',
    phases: BOTH_PHASES,
    reads: 'text',
    parse(params, path) {
      const p: ParamReader = new ParamReader(params, path);
      return { onlyDNS: p.bool('onlyDNS', false) };
    },
    async evaluate(input, { onlyDNS }) {
      const urls = findUrls(textFor(input));
      if (urls.length === 0) return { verdict: true, explanation: 'No URLs in the text.', data: { urls: [] } };
      const invalid = urls.filter((u) => !isValidUrl(u));
      if (onlyDNS) {
        const hosts = [...new Set(urls.filter(isValidUrl).map((u) => new URL(u).hostname))].slice(0, MAX_HOSTS);
        const results = await Promise.all(hosts.map(async (h) => [h, await resolves(lookup, h.replace(/^\[|\]$/g, ''))] as const));
        const dead = new Set(results.filter(([, ok]) => !ok).map(([h]) => h));
        for (const u of urls) if (isValidUrl(u) && dead.has(new URL(u).hostname)) invalid.push(u);
      }
      return {
        verdict: invalid.length === 0,
        explanation: invalid.length ? `Invalid URLs: ${invalid.join(', ')}.` : `All ${urls.length} URLs are valid.`,
        data: { urls, invalid, onlyDNS },
      };
    },
  });
}

export const validUrls = createValidUrls((host) => dnsLookup(host));
