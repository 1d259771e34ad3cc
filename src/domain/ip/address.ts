// IP addresses and blocks as reverse DNS needs them (docs/rdns.md "Addresses in URLs and bodies"):
// parsed from any valid textual form, written in one form (IPv4 dotted quad, IPv6 RFC 5952),
// compared as numbers, and mapped to their reverse names (RFC 1035 §3.5, RFC 3596 §2.5).
import { formatIpv4, formatIpv6, writeIpv4, writeIpv6 } from '../../../nameserver/wire/address.js';
import { canonicalName } from '../names.js';

export type Family = 4 | 6;

export interface Address {
  family: Family;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

export interface Block {
  family: Family;
  /** The first address. */
  network: bigint;
  prefixLength: number;
}

export class AddressError extends Error {
  constructor(
    readonly code: 'invalid_ip' | 'ipv4_mapped_address' | 'invalid_cidr' | 'not_network_address',
    message: string,
  ) {
    super(message);
  }
}

const bits = (family: Family) => (family === 4 ? 32 : 128);

const scratch = Buffer.alloc(16);

/**
 * An address in any valid textual form (the codec reads it). IPv4-mapped and -compatible IPv6 are
 * refused (their PTR lives in in-addr.arpa) unless `mapped: 'keep'`: a check of where an address
 * leads (addressKind.ts) must see them as they are.
 */
export function parseAddress(text: string, options: { mapped: 'refuse' | 'keep' } = { mapped: 'refuse' }): Address {
  const t = text.trim();
  if (writeIpv4(scratch, 0, t)) return { family: 4, value: BigInt(scratch.readUInt32BE(0)) };
  if (!writeIpv6(scratch, 0, t)) throw new AddressError('invalid_ip', `"${text}" is not an IPv4 or IPv6 address.`);
  const value = (scratch.readBigUInt64BE(0) << 64n) | scratch.readBigUInt64BE(8);
  if (options.mapped === 'refuse' && (value >> 32n === 0xffffn || (value >> 32n === 0n && value > 1n))) {
    throw new AddressError('ipv4_mapped_address', `"${text}" is an IPv4-mapped or IPv4-compatible IPv6 address; give the IPv4 address itself.`);
  }
  return { family: 6, value };
}

/** The address's one textual form, the codec's: dotted quad, or RFC 5952. */
export function formatAddress(a: Address): string {
  if (a.family === 4) {
    scratch.writeUInt32BE(Number(a.value), 0);
    return formatIpv4(scratch, 0);
  }
  scratch.writeBigUInt64BE(a.value >> 64n, 0);
  scratch.writeBigUInt64BE(a.value & 0xffffffffffffffffn, 8);
  return formatIpv6(scratch, 0);
}

/** A block written `address/length`; the address must be the block's first. */
export function parseBlock(text: string): Block {
  const slash = text.lastIndexOf('/');
  if (slash < 0) throw new AddressError('invalid_cidr', `"${text}" is not a CIDR block (address/length).`);
  const address = parseAddress(text.slice(0, slash));
  const lengthText = text.slice(slash + 1);
  const prefixLength = Number(lengthText);
  if (!/^\d{1,3}$/.test(lengthText) || prefixLength > bits(address.family)) throw new AddressError('invalid_cidr', `"${text}" has no valid prefix length.`);
  const block = { family: address.family, network: address.value, prefixLength };
  if (address.value !== firstOf(block))
    throw new AddressError(
      'not_network_address',
      `"${text}" does not start at its block's first address (${formatBlock({ ...block, network: firstOf(block) })}).`,
    );
  return block;
}

/** The URL form of a block: `-` for `/` (`192.0.2.0-24`, `2001:db8::-48`); `%2F` and `/` are accepted too. */
export function parseBlockFromPath(segment: string): Block {
  const text = decodeURIComponent(segment);
  const dash = text.lastIndexOf('-');
  return parseBlock(text.includes('/') || dash < 0 ? text : `${text.slice(0, dash)}/${text.slice(dash + 1)}`);
}

export const formatBlock = (b: Block) => `${formatAddress({ family: b.family, value: b.network })}/${b.prefixLength}`;
export const blockPath = (b: Block) => formatBlock(b).replace('/', '-');

const hostBits = (b: Block) => BigInt(bits(b.family) - b.prefixLength);
const firstOf = (b: Block) => (b.network >> hostBits(b)) << hostBits(b);
export const lastOf = (b: Block) => b.network + (1n << hostBits(b)) - 1n;
export const blockSize = (b: Block) => 1n << hostBits(b);

export const blockContains = (outer: Block, a: Address) => outer.family === a.family && a.value >= outer.network && a.value <= lastOf(outer);
export const blockWithin = (inner: Block, outer: Block) => inner.family === outer.family && inner.network >= outer.network && lastOf(inner) <= lastOf(outer);
export const blocksOverlap = (a: Block, b: Block) => a.family === b.family && a.network <= lastOf(b) && b.network <= lastOf(a);

/** The owner name of an address's PTR (without the trailing dot). */
export function reverseName(a: Address): string {
  if (a.family === 4) return `${formatAddress(a).split('.').reverse().join('.')}.in-addr.arpa`;
  const nibbles = a.value.toString(16).padStart(32, '0').split('').reverse();
  return `${nibbles.join('.')}.ip6.arpa`;
}

/** The address a reverse name stands for, or null (a name that is not a whole address's). */
export function addressOfReverseName(name: string): Address | null {
  const n = canonicalName(name);
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.in-addr\.arpa$/.exec(n);
  if (v4) {
    const octets = v4.slice(1, 5).reverse().map(Number);
    return octets.every((o, i) => o <= 255 && String(o) === v4[4 - i]) ? { family: 4, value: octets.reduce((v, o) => (v << 8n) | BigInt(o), 0n) } : null;
  }
  const v6 = /^((?:[0-9a-f]\.){32})ip6\.arpa$/.exec(n);
  if (!v6) return null;
  return { family: 6, value: BigInt(`0x${v6[1]!.split('.').filter(Boolean).reverse().join('')}`) };
}

/** A reverse zone of a block: its name, the block it covers, and (RFC 2317) whether it is a classless zone below a /24. */
export interface ReverseZone {
  name: string;
  block: Block;
  classless: boolean;
}

/**
 * The reverse zones a block is cut into (docs/rdns.md "Reverse zones"): IPv4 on octet boundaries —
 * a block is one zone at the next octet boundary at or above its length when it fills it, else
 * the zones of that boundary inside it — and RFC 2317 classless zones (`<first>-<length>` under the
 * /24) for blocks smaller than a /24; IPv6 on nibble boundaries the same way.
 */
export function reverseZonesOf(b: Block): ReverseZone[] {
  const step = b.family === 4 ? 8 : 4;
  if (b.family === 4 && b.prefixLength > 24) {
    const octets = formatAddress({ family: 4, value: b.network }).split('.');
    const parent = `${octets.slice(0, 3).reverse().join('.')}.in-addr.arpa`;
    // `64-26`, not RFC 2317's example `64/26`: the label must be a host-name label to be a zone
    // name, a record owner and a CNAME target like any other (RFC 2317 §5.2 leaves the form open).
    return [{ name: `${octets[3]}-${b.prefixLength}.${parent}`, block: b, classless: true }];
  }
  const boundary = Math.ceil(b.prefixLength / step) * step;
  const count = 1n << BigInt(boundary - b.prefixLength);
  const size = 1n << BigInt(bits(b.family) - boundary);
  const zones: ReverseZone[] = [];
  for (let i = 0n; i < count; i++) {
    const block = { family: b.family, network: b.network + i * size, prefixLength: boundary };
    zones.push({ name: zoneNameOf(block), block, classless: false });
  }
  return zones;
}

/** The reverse zone name of a block on an octet (IPv4) or nibble (IPv6) boundary. */
function zoneNameOf(b: Block): string {
  if (b.family === 4) {
    const labels = formatAddress({ family: 4, value: b.network })
      .split('.')
      .slice(0, b.prefixLength / 8);
    return [...labels.reverse(), 'in-addr', 'arpa'].join('.');
  }
  const nibbles = b.network
    .toString(16)
    .padStart(32, '0')
    .slice(0, b.prefixLength / 4)
    .split('');
  return [...nibbles.reverse(), 'ip6', 'arpa'].join('.');
}

/** An address with `-` for its separators, for default PTR patterns (`192-0-2-10`, `2001-db8--10`). */
export const dashedAddress = (a: Address) => formatAddress(a).replace(/[.:]/g, '-');

/** An RFC 2317 classless zone's name: `<first>-<length>.<c>.<b>.<a>.in-addr.arpa` (docs/rdns.md). */
export const isClasslessZoneName = (zone: string) => /^\d{1,3}-\d{2}\.(\d{1,3}\.){3}in-addr\.arpa$/.test(zone);

/** The standard reverse name of an owner in a reverse zone; in an RFC 2317 zone (`10` in `0-26.2.0.192.in-addr.arpa`) the address in the /24. */
export function reverseNameOfOwner(relative: string, zone: string): string {
  const base = isClasslessZoneName(zone) ? zone.slice(zone.indexOf('.') + 1) : zone;
  return relative === '@' ? base : `${relative}.${base}`;
}
