// Which clients may transfer zones: a list of CIDR blocks (IPv4 and IPv6). Addresses are compared
// as 16 octets, IPv4 as IPv4-mapped IPv6 (RFC 4291 §2.5.5.2), so "127.0.0.1/32" also admits a
// client that a dual-stack socket reports as "::ffff:127.0.0.1", and "::ffff:0:0/96" admits every
// IPv4 client.
import { writeIpv4, writeIpv6 } from '../wire/address.js';

interface Block {
  prefix: Buffer;
  bits: number;
}

/** 16 octets of an IPv4 or IPv6 address in text (a zone index "%eth0" ignored), or null. */
function addressOctets(text: string): Buffer | null {
  const out = Buffer.alloc(16);
  const percent = text.indexOf('%');
  const bare = percent >= 0 ? text.slice(0, percent) : text;
  if (writeIpv4(out, 12, bare)) {
    out[10] = 0xff;
    out[11] = 0xff;
    return out;
  }
  return writeIpv6(out, 0, bare) ? out : null;
}

export class AddressList {
  private readonly blocks: Block[];

  /** Throws a RangeError for an entry that is not address/prefix-length. */
  constructor(cidrs: readonly string[]) {
    this.blocks = cidrs.map((cidr) => {
      const slash = cidr.lastIndexOf('/');
      const address = slash >= 0 ? cidr.slice(0, slash) : cidr;
      const v4 = writeIpv4(Buffer.alloc(4), 0, address);
      const width = v4 ? 32 : 128;
      const length = slash >= 0 ? Number(cidr.slice(slash + 1)) : width;
      const prefix = addressOctets(address);
      if (!prefix || !Number.isInteger(length) || length < 0 || length > width || (slash >= 0 && !/^\d{1,3}$/.test(cidr.slice(slash + 1)))) {
        throw new RangeError(`"${cidr}" is not a CIDR block (192.0.2.0/24, 2001:db8::/32)`);
      }
      return { prefix, bits: v4 ? 96 + length : length };
    });
  }

  get size(): number {
    return this.blocks.length;
  }

  /** True when `address` (as a socket reports it) lies in one of the blocks. */
  includes(address: string): boolean {
    const octets = addressOctets(address);
    return octets !== null && this.includesOctets(octets);
  }

  /** True when the address given as 16 octets (IPv4 as IPv4-mapped IPv6) lies in one of the blocks. */
  includesOctets(octets: Buffer): boolean {
    for (const block of this.blocks) if (matches(octets, block)) return true;
    return false;
  }
}

function matches(address: Buffer, block: Block): boolean {
  const whole = block.bits >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== block.prefix[i]) return false;
  const rest = block.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (address[whole]! & mask) === (block.prefix[whole]! & mask);
}
