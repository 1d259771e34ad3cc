// What an address is for, by the special-purpose registries (RFC 6890 and IANA's IPv4 and IPv6
// special-purpose address registries). The one classification every policy reads: where a webhook
// may deliver (docs/webhooks.md "URL safety") and what a router may publish through /nic/update
// (docs/dyndns.md "Addresses a router may publish"). Policies differ in which kinds they refuse,
// never in what an address is.
import { type Address, type Block, blockContains, parseBlock } from './address.js';

export type AddressKind =
  /** 0.0.0.0, :: — "any address", never a destination. */
  | 'unspecified'
  /** 0.0.0.0/8 (RFC 1122 §3.2.1.3): "this host on this network", not a destination either. */
  | 'this_network'
  | 'loopback'
  /** 169.254/16 (cloud metadata services live here), fe80::/10. */
  | 'link_local'
  | 'multicast'
  /** 255.255.255.255 (RFC 919). */
  | 'broadcast'
  /** 240/4 (future use), ::/96 (deprecated IPv4-compatible, RFC 4291 §2.5.5.1), 100::/64 (discard-only, RFC 6666). */
  | 'reserved'
  /** RFC 1918, fc00::/7 (unique local), fec0::/10 (old site-local), 64:ff9b:1::/48 (local-use NAT64, RFC 8215), 192.0.0/24 (IETF protocol assignments). */
  | 'private'
  /** 100.64/10 (RFC 6598, carrier-grade NAT). */
  | 'shared'
  /** 198.18/15 (RFC 2544). */
  | 'benchmarking'
  /** 192.0.2/24, 198.51.100/24, 203.0.113/24 (RFC 5737), 2001:db8::/32 (RFC 3849). */
  | 'documentation'
  | 'global';

/** Most specific first: the first block holding an address names its kind. */
const TABLE: [Block, AddressKind][] = [
  [parseBlock('0.0.0.0/32'), 'unspecified'],
  [parseBlock('255.255.255.255/32'), 'broadcast'],
  [parseBlock('0.0.0.0/8'), 'this_network'],
  [parseBlock('10.0.0.0/8'), 'private'],
  [parseBlock('100.64.0.0/10'), 'shared'],
  [parseBlock('127.0.0.0/8'), 'loopback'],
  [parseBlock('169.254.0.0/16'), 'link_local'],
  [parseBlock('172.16.0.0/12'), 'private'],
  [parseBlock('192.0.0.0/24'), 'private'],
  [parseBlock('192.0.2.0/24'), 'documentation'],
  [parseBlock('192.168.0.0/16'), 'private'],
  [parseBlock('198.18.0.0/15'), 'benchmarking'],
  [parseBlock('198.51.100.0/24'), 'documentation'],
  [parseBlock('203.0.113.0/24'), 'documentation'],
  [parseBlock('224.0.0.0/4'), 'multicast'],
  [parseBlock('240.0.0.0/4'), 'reserved'],
  [parseBlock('::/128'), 'unspecified'],
  [parseBlock('::1/128'), 'loopback'],
  [parseBlock('::/96'), 'reserved'],
  [parseBlock('64:ff9b:1::/48'), 'private'],
  [parseBlock('100::/64'), 'reserved'],
  [parseBlock('2001:db8::/32'), 'documentation'],
  [parseBlock('fc00::/7'), 'private'],
  [parseBlock('fe80::/10'), 'link_local'],
  [parseBlock('fec0::/10'), 'private'],
  [parseBlock('ff00::/8'), 'multicast'],
];

// Written as a value: parseAddress refuses IPv4-mapped addresses (their PTR is the IPv4 one's).
const MAPPED: Block = { family: 6, network: 0xffffn << 32n, prefixLength: 96 };
const NAT64 = parseBlock('64:ff9b::/96');

/**
 * The IPv4 address an IPv4-mapped (::ffff:0:0/96, a dual-stack socket's form) or NAT64
 * well-known-prefix (64:ff9b::/96, RFC 6052) IPv6 address stands for, else null: such an address
 * reaches what its IPv4 address reaches, so it is judged as that.
 */
export function embeddedIpv4(a: Address): Address | null {
  if (a.family !== 6 || !(blockContains(MAPPED, a) || blockContains(NAT64, a))) return null;
  return { family: 4, value: a.value & 0xffffffffn };
}

export function addressKind(a: Address): AddressKind {
  const subject = embeddedIpv4(a) ?? a;
  for (const [b, kind] of TABLE) if (blockContains(b, subject)) return kind;
  return 'global';
}

/** The kind in words, for a problem's detail or a log line ("a link-local address"). */
export const describeAddressKind = (kind: AddressKind): string =>
  ({
    unspecified: 'the unspecified address',
    this_network: 'a "this network" address',
    loopback: 'a loopback address',
    link_local: 'a link-local address',
    multicast: 'a multicast address',
    broadcast: 'the broadcast address',
    reserved: 'a reserved address',
    private: 'a private address',
    shared: 'a shared (carrier-grade NAT) address',
    benchmarking: 'a benchmarking address',
    documentation: 'a documentation address',
    global: 'a global address',
  })[kind];
