// The dyndns2 protocol as routers speak it (docs/dyndns.md): what a GET /nic/update request asks
// and how its answers are written. Pure: the HTTP side hands in the query, two headers and the
// peer's address, and writes out what this returns.
import type { Deployment } from '../domain/deployment.js';
import { type DyndnsAnswer, type DyndnsUpdateRequest, unpublishableAddress } from '../domain/dyndns.js';
import { type Address, AddressError, type Block, blockContains, parseAddress, parseBlock } from '../domain/ip/address.js';
import { describeAddressKind } from '../domain/ip/addressKind.js';

/**
 * A request refused as a whole, before its credentials are looked at; nothing written. `dnserr`:
 * its addresses cannot be read or published. `numhost`: more host names than MAX_HOSTNAMES.
 */
export class Dyndns2InputError extends Error {
  constructor(
    message: string,
    readonly answer: 'dnserr' | 'numhost' = 'dnserr',
  ) {
    super(message);
  }
}

/**
 * Dyn's dyndns2 return codes: at most 20 host names in one update, `numhost` for more.
 * One set of credentials updates one host here, so a longer list is a broken client (or one
 * making each request cost a line per name): refused before any name is read.
 */
export const MAX_HOSTNAMES = 20;

type Query = Record<string, string | string[] | undefined>;

const all = (q: Query, name: string): string[] => {
  const v = q[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};
const first = (q: Query, ...names: string[]): string | null => {
  for (const n of names) {
    const v = all(q, n)[0];
    if (v !== undefined && v !== '') return v;
  }
  return null;
};

/**
 * An address as the socket or a proxy header gives it: IPv4-mapped IPv6 (a dual-stack socket's
 * `::ffff:192.0.2.1`) is the IPv4 address; a zone index (`%eth0`) is dropped.
 */
function peerAddress(text: string | undefined | null): Address | null {
  if (!text) return null;
  const t = text
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(t);
  try {
    return parseAddress(mapped ? mapped[1]! : t);
  } catch {
    return null;
  }
}

/**
 * The client's address: the peer, unless the peer is a trusted proxy; then the right-most
 * address of X-Forwarded-For that is not itself a trusted proxy (the left part of the header is
 * whatever the client wrote, RFC 7239 §7.4). Never trusted otherwise.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: Block[]): Address | null {
  const p = peerAddress(peer);
  const isTrusted = (a: Address) => trusted.some((b) => blockContains(b, a));
  if (!p || !forwardedFor || !isTrusted(p)) return p;
  const hops = forwardedFor.split(',').map((h) => peerAddress(h));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (!hop) return p;
    if (!isTrusted(hop)) return hop;
  }
  return p;
}

export const parseTrustedProxies = (cidrs: string[]): Block[] => cidrs.map((c) => (c.includes('/') ? parseBlock(c) : addressBlock(parseAddress(c))));
const addressBlock = (a: Address): Block => ({ family: a.family, network: a.value, prefixLength: a.family === 4 ? 32 : 128 });

function credentials(authorization: string | undefined, q: Query): { username: string | null; password: string | null } {
  const basic = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  // Routers that cannot send Basic auth put the credentials in the query (Fritz!Box, inadyn's %u/%p).
  return { username: first(q, 'username', 'user', 'login'), password: first(q, 'password', 'pass', 'pwd') };
}

/**
 * myip / myipv6: one address each, or both families comma-separated; empty means absent. Only
 * addresses others can reach (docs/dyndns.md "Addresses a router may publish").
 */
function addresses(q: Query, deployment: Deployment): { ipv4: Address | null; ipv6: Address | null } {
  const out: { ipv4: Address | null; ipv6: Address | null } = { ipv4: null, ipv6: null };
  for (const raw of [...all(q, 'myip'), ...all(q, 'myipv6')].flatMap((v) => v.split(','))) {
    const t = raw.trim();
    if (t === '') continue;
    // A zone index (fe80::1%eth0) names an interface of the router: no one else can use it.
    if (t.includes('%')) throw new Dyndns2InputError(`"${t}" is scoped to an interface of the client.`);
    let a: Address;
    try {
      a = peerAddress(t) ?? parseAddress(t);
    } catch (e) {
      if (e instanceof AddressError) throw new Dyndns2InputError(e.message);
      throw e;
    }
    const refused = unpublishableAddress(a, deployment);
    if (refused) throw new Dyndns2InputError(`"${t}" is ${describeAddressKind(refused)}; it cannot be published.`);
    const key = a.family === 4 ? 'ipv4' : 'ipv6';
    if (out[key] && out[key]!.value !== a.value) throw new Dyndns2InputError(`Two different IPv${a.family} addresses given.`);
    out[key] = a;
  }
  return out;
}

export function parseDyndns2Request(
  q: Query,
  headers: { authorization?: string; userAgent?: string },
  source: Address | null,
  deployment: Deployment,
): DyndnsUpdateRequest {
  const hostParams = all(q, 'hostname');
  const hostnames = hostParams.length
    ? hostParams
        .flatMap((h) => h.split(','))
        .map((h) => h.trim())
        .filter((h) => h !== '')
    : null;
  if (hostnames && hostnames.length > MAX_HOSTNAMES) throw new Dyndns2InputError(`${hostnames.length} host names; at most ${MAX_HOSTNAMES}.`, 'numhost');
  return {
    ...credentials(headers.authorization, q),
    hostnames: hostnames?.length ? hostnames : null,
    ...addresses(q, deployment),
    offline: /^(yes|1|true|on)$/i.test(first(q, 'offline') ?? ''),
    source,
    client: headers.userAgent?.trim() || null,
  };
}

/**
 * The answer to a refused request: one line. `dnserr` is 400 (docs/dyndns.md "Answers");
 * `numhost` is 200, like the other words of Dyn's return codes that clients read from the body
 * ("Too many hosts (more than 20) specified in an update"); a 4xx they report as a failed request.
 */
export function formatDyndns2Refusal(err: Dyndns2InputError): { status: number; body: string; headers: Record<string, string> } {
  return { status: err.answer === 'numhost' ? 200 : 400, body: `${err.answer}\n`, headers: {} };
}

/**
 * The response: one line per host name. HTTP 200 for every answer (dyndns2 clients read the
 * body), except badauth: 401 with a Basic challenge, which ddclient ("authorization failed") and
 * inadyn (authentication failure) both report as such.
 */
export function formatDyndns2Answers(answers: DyndnsAnswer[]): { status: number; body: string; headers: Record<string, string> } {
  const body = `${answers.map((a) => (a.ip ? `${a.code} ${a.ip}` : a.code)).join('\n')}\n`;
  if (answers.length && answers.every((a) => a.code === 'badauth')) {
    return { status: 401, body, headers: { 'WWW-Authenticate': 'Basic realm="dyndns", charset="UTF-8"' } };
  }
  return { status: 200, body, headers: {} };
}
