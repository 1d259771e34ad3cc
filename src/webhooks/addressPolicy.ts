// Where a delivery may go (docs/webhooks.md "URL safety"). Production refuses loopback,
// link-local, private, shared, multicast and reserved addresses and the service's own; the check
// runs on the address the name resolves to at delivery time and the connection goes to exactly
// that address (the resolver's answer is never asked for twice, so a rebinding name cannot swap
// a checked address for another).
import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';
import os from 'node:os';

export interface AddressPolicy {
  allowHttp: boolean;
  allowPrivateAddresses: boolean;
  /** Addresses of this service (its interfaces, its configured listeners): never a receiver. */
  ownAddresses: string[];
}

/** Special-purpose blocks (RFC 6890 and its IPv6 registry) no receiver lives in. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // RFC 6598 shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address an IPv4-mapped or NAT64 (64:ff9b::/96) IPv6 address stands for, else null. */
function embeddedIpv4(address: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Why a receiver at `address` is refused, or null when it may be reached. */
export function refusedAddress(address: string, policy: AddressPolicy): string | null {
  if (policy.allowPrivateAddresses) return null;
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const v4 = family === 6 ? embeddedIpv4(address.toLowerCase()) : address;
  if (v4 ? FORBIDDEN.check(v4, 'ipv4') : FORBIDDEN.check(address, 'ipv6')) return 'a loopback, link-local, private or reserved address';
  const own = policy.ownAddresses.map((a) => a.toLowerCase());
  if (own.includes(address.toLowerCase()) || (v4 !== null && own.includes(v4))) return "one of the service's own addresses";
  return null;
}

/** The service's own addresses: every interface's, and the listeners' when they name one. */
export function ownAddresses(listeners: string[]): string[] {
  const interfaces = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')));
  return [...new Set([...interfaces, ...listeners.filter((h) => isIP(h) !== 0)])];
}

/** What a URL a user registers must look like (checked again, on the address, at delivery). */
export function urlProblem(raw: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) return policy.allowHttp ? 'must be an http or https URL' : 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials (put a token in the path or query instead)';
  if (url.hash) return 'must not have a fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const refused = refusedAddress(host, policy);
    if (refused) return `must not point at ${refused}`;
  } else if (!policy.allowPrivateAddresses && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.'))) {
    return 'must name a public host';
  }
  return null;
}

export class RefusedAddressError extends Error {
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
export function addressPolicyFor(config: { webhooks: { allowHttp: boolean; allowPrivateAddresses: boolean }; http: { host: string }; dns: { hosts: string[] } }): AddressPolicy {
  cachedOwn ??= ownAddresses([config.http.host, ...config.dns.hosts]);
  return { allowHttp: config.webhooks.allowHttp, allowPrivateAddresses: config.webhooks.allowPrivateAddresses, ownAddresses: cachedOwn };
}
