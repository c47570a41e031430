import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** The only IPv6 block allocated for global unicast (RFC 4291 §2.4); anything outside it is not a real destination. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291 §2.5.5.1): refused whatever it embeds. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
/** NAT64 well-known prefix (RFC 6052): the last 32 bits are the IPv4 destination. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Names the non-public range an IP address belongs to, or returns null when it is a public unicast
 * address. Uses ipaddr.js's special-range tables (RFC 6890 and successors): IPv4 is public only in
 * its `unicast` range (so 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.0.2/24,
 * 192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24, multicast, 240/4 and broadcast are not);
 * IPv6 is public only in `unicast` inside 2000::/3. Embedded IPv4 addresses are unwrapped and
 * classified in turn: IPv4-mapped (`::ffff:a.b.c.d`), SIIT (`::ffff:0:a.b.c.d`), NAT64 `64:ff9b::/96`
 * and 6to4 `2002:AABB:CCDD::/48`. IPv4-compatible `::a.b.c.d`, local-use NAT64 `64:ff9b:1::/48` and
 * Teredo are never public. A string that is not an IP address is reported as `invalid`.
 */
export function nonPublicRange(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) return v4Range(ipaddr.IPv4.parse(bare));
  if (family === 6) return v6Range(ipaddr.IPv6.parse(hexTail(bare)));
  return 'invalid';
}

/**
 * Rewrites a dotted IPv4 tail as two hex groups (`::127.0.0.1` → `::7f00:1`): ipaddr.js reads a
 * dotted tail after `::` as IPv4-mapped whatever precedes it, which would hide IPv4-compatible forms.
 */
function hexTail(v6: string): string {
  return v6.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/, (_m, a: string, b: string, c: string, d: string, zone: string | undefined) => {
    const hi = (Number(a) << 8) | Number(b);
    const lo = (Number(c) << 8) | Number(d);
    return `${hi.toString(16)}:${lo.toString(16)}${zone ?? ''}`;
  });
}

/** True for a public unicast address (see {@link nonPublicRange}). */
export function isPublicAddress(address: string): boolean {
  return nonPublicRange(address) === null;
}

function v4Range(ip: IPv4): string | null {
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

function v6Range(ip: IPv6): string | null {
  const embedded = embeddedV4(ip);
  if (embedded) {
    const inner = v4Range(embedded.v4);
    return inner === null ? null : `${embedded.via} of ${inner}`;
  }
  if (ip.match(IPV4_COMPATIBLE) && ip.range() !== 'unspecified' && ip.range() !== 'loopback') return 'ipv4Compatible';
  const range = ip.range();
  if (range !== 'unicast') return range;
  return ip.match(GLOBAL_UNICAST_V6) ? null : 'unallocated';
}

/** The IPv4 address an IPv6 address carries by a translation or tunnelling scheme that routes to it. */
function embeddedV4(ip: IPv6): { via: string; v4: IPv4 } | null {
  const p = ip.parts;
  const range = ip.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || ip.match(NAT64_WELL_KNOWN))
    return { via: range === 'rfc6052' ? 'nat64' : range, v4: lowV4(p[6]!, p[7]!) };
  if (range === '6to4') return { via: '6to4', v4: lowV4(p[1]!, p[2]!) };
  return null;
}

function lowV4(hi: number, lo: number): IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}
