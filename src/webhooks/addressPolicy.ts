// Where a delivery may go (docs/webhooks.md "URL safety"). Production refuses loopback,
// link-local, private, shared, multicast and reserved addresses and the service's own; the check
// runs on the address the name resolves to at delivery time and the connection goes to exactly
// that address (the resolver's answer is never asked for twice, so a rebinding name cannot swap
// a checked address for another).
import { isIP } from 'node:net';
import dns from 'node:dns';
import os from 'node:os';
import { type Address, AddressError, formatAddress, parseAddress } from '../domain/ip/address.js';
import { normalizeName } from '../../nameserver/wire/name.js';
import { addressKind, describeAddressKind, embeddedIpv4 } from '../domain/ip/addressKind.js';

export interface AddressPolicy {
  allowHttp: boolean;
  allowPrivateAddresses: boolean;
  /** Addresses of this service (its interfaces, its configured listeners): never a receiver. */
  ownAddresses: string[];
}

/** An address as text (a resolver's answer, a URL's host), or null when it is none. */
function readAddress(text: string): Address | null {
  try {
    return parseAddress(text, { mapped: 'keep' });
  } catch (e) {
    if (e instanceof AddressError) return null;
    throw e;
  }
}

/** One spelling per destination: an IPv4-mapped or NAT64 form is its IPv4 address. */
const destination = (a: Address) => formatAddress(embeddedIpv4(a) ?? a);

/** Why a receiver at `address` is refused, or null when it may be reached. */
export function refusedAddress(address: string, policy: AddressPolicy): string | null {
  if (policy.allowPrivateAddresses) return null;
  const a = readAddress(address);
  if (!a) return 'not an IP address';
  // Only the global Internet: every special-purpose block (addressKind.ts) is someone's inside.
  const kind = addressKind(a);
  if (kind !== 'global') return describeAddressKind(kind);
  const own = policy.ownAddresses.map(readAddress).filter((o) => o !== null);
  if (own.some((o) => destination(o) === destination(a))) return "one of the service's own addresses";
  return null;
}

/** The service's own addresses: every interface's, and the listeners' when they name one. */
function ownAddresses(listeners: string[]): string[] {
  const interfaces = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')));
  return [...new Set([...interfaces, ...listeners.filter((h) => isIP(h) !== 0)])];
}

/**
 * A receiver URL as it is checked and stored: the WHATWG serialisation (scheme and host in lower
 * case, an IPv4 host in dotted form) with the host's one final dot dropped. `LOCALHOST.` is the
 * name `localhost` to every resolver; checking the spelling as written let it past the policy.
 */
function normalisedUrl(raw: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  url.hostname = normalizeName(url.hostname);
  return url;
}

/**
 * What a URL a user registers must look like (checked again, on the address, at delivery): the
 * URL to store, normalised, or why it is refused.
 */
export function checkWebhookUrl(raw: string, policy: AddressPolicy): { url: string } | { problem: string } {
  const url = normalisedUrl(raw);
  if (!url) return { problem: 'must be an absolute http(s) URL' };
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    return { problem: policy.allowHttp ? 'must be an http or https URL' : 'must be an https URL' };
  if (url.username || url.password) return { problem: 'must not carry credentials (put a token in the path or query instead)' };
  if (url.hash) return { problem: 'must not have a fragment' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const refused = refusedAddress(host, policy);
    if (refused) return { problem: `must not point at ${refused}` };
  } else if (host === '' || host.split('.').includes('')) {
    return { problem: 'must name a host (no empty labels)' };
  } else if (!policy.allowPrivateAddresses && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.'))) {
    return { problem: 'must name a public host' };
  }
  return { url: url.href };
}

class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
  constructor(
    readonly address: string,
    reason: string,
  ) {
    super(`refused to connect to ${address}: ${reason}`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request: resolves the name, keeps the addresses the policy allows and hands
 * the first of them to the socket, which connects to it and nothing else. A name whose addresses
 * are all refused fails the attempt (outcome `refused_address`).
 */
export function guardedLookup(policy: AddressPolicy, resolve: typeof dns.lookup = dns.lookup) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as dns.LookupAddress[];
      const allowed = list.filter((a) => refusedAddress(a.address, policy) === null);
      if (allowed.length === 0) {
        const first = list[0]?.address ?? hostname;
        return callback(new RefusedAddressError(first, refusedAddress(first, policy) ?? 'no address'), '');
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

let cachedOwn: string[] | null = null;

/** The policy of this deployment (docs/webhooks.md "URL safety"); own addresses read once. */
export function addressPolicyFor(config: {
  webhooks: { allowHttp: boolean; allowPrivateAddresses: boolean };
  http: { host: string };
  dns: { hosts: string[] };
}): AddressPolicy {
  cachedOwn ??= ownAddresses([config.http.host, ...config.dns.hosts]);
  return { allowHttp: config.webhooks.allowHttp, allowPrivateAddresses: config.webhooks.allowPrivateAddresses, ownAddresses: cachedOwn };
}
