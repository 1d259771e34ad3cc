// Addresses and blocks: parsing every textual form, RFC 5952 output (its §4 rules and examples),
// refusals, reverse names (RFC 1035 §3.5, RFC 3596 §2.5) and the cut of blocks into reverse zones
// (octets and RFC 2317 for IPv4, nibbles for IPv6).
import { describe, expect, it } from 'vitest';
import {
  type AddressError,
  addressOfReverseName,
  blockPath,
  blocksOverlap,
  dashedAddress,
  formatAddress,
  formatBlock,
  parseAddress,
  parseBlock,
  parseBlockFromPath,
  reverseName,
  reverseZonesOf,
} from '../../../src/domain/ip/address.js';

const fmt = (text: string) => formatAddress(parseAddress(text));
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as AddressError).code;
  }
  return null;
};

describe('addresses', () => {
  it('writes IPv6 in RFC 5952 form whatever the input', () => {
    expect(fmt('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(fmt('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1'); // §4.2.3: the first of equal runs
    expect(fmt('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1'); // §4.2.2: one 0 group stays
    expect(fmt('2001:db8::0:1')).toBe('2001:db8::1');
    expect(fmt('::1')).toBe('::1');
    expect(fmt('2001:db8:aaaa:bbbb:cccc:dddd:eeee:0')).toBe('2001:db8:aaaa:bbbb:cccc:dddd:eeee:0');
    expect(fmt('fe80::')).toBe('fe80::');
    expect(fmt(' 192.0.2.10 ')).toBe('192.0.2.10');
  });

  it('refuses what is no address, and IPv4-mapped or -compatible IPv6', () => {
    expect(codeOf(() => parseAddress('192.0.2.256'))).toBe('invalid_ip');
    expect(codeOf(() => parseAddress('2001:db8::g'))).toBe('invalid_ip');
    expect(codeOf(() => parseAddress('fe80::1%eth0'))).toBe('invalid_ip');
    expect(codeOf(() => parseAddress('::ffff:192.0.2.1'))).toBe('ipv4_mapped_address');
    expect(codeOf(() => parseAddress('::ffff:c000:201'))).toBe('ipv4_mapped_address');
    expect(codeOf(() => parseAddress('::192.0.2.1'))).toBe('ipv4_mapped_address');
  });

  it('names the PTR owner of an address and reads it back', () => {
    expect(reverseName(parseAddress('192.0.2.10'))).toBe('10.2.0.192.in-addr.arpa');
    // RFC 3596 §2.5's example.
    expect(reverseName(parseAddress('4321:0:1:2:3:4:567:89ab'))).toBe('b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.0.0.0.0.1.2.3.4.ip6.arpa');
    for (const ip of ['192.0.2.10', '2001:db8::10', '4321:0:1:2:3:4:567:89ab'])
      expect(formatAddress(addressOfReverseName(reverseName(parseAddress(ip)))!)).toBe(fmt(ip));
    expect(addressOfReverseName('2.0.192.in-addr.arpa')).toBeNull();
    expect(addressOfReverseName('010.2.0.192.in-addr.arpa')).toBeNull();
    expect(dashedAddress(parseAddress('2001:db8::10'))).toBe('2001-db8--10');
  });
});

describe('blocks', () => {
  it('parses CIDR text and the URL form, and refuses a block not starting at its first address', () => {
    expect(formatBlock(parseBlock('192.0.2.0/24'))).toBe('192.0.2.0/24');
    expect(formatBlock(parseBlockFromPath('2001:DB8:0::-48'))).toBe('2001:db8::/48');
    expect(formatBlock(parseBlockFromPath('192.0.2.0%2F24'))).toBe('192.0.2.0/24');
    expect(blockPath(parseBlock('2001:db8::/48'))).toBe('2001:db8::-48');
    expect(codeOf(() => parseBlock('192.0.2.1/24'))).toBe('not_network_address');
    expect(codeOf(() => parseBlock('192.0.2.0/33'))).toBe('invalid_cidr');
    expect(codeOf(() => parseBlock('192.0.2.0'))).toBe('invalid_cidr');
    expect(blocksOverlap(parseBlock('192.0.2.0/24'), parseBlock('192.0.2.128/25'))).toBe(true);
    expect(blocksOverlap(parseBlock('192.0.2.0/25'), parseBlock('192.0.2.128/25'))).toBe(false);
  });

  it('cuts blocks into reverse zones on octets (RFC 2317 below a /24) and nibbles', () => {
    const names = (cidr: string) => reverseZonesOf(parseBlock(cidr)).map((z) => z.name);
    expect(names('203.0.113.0/24')).toEqual(['113.0.203.in-addr.arpa']);
    expect(names('198.18.0.0/16')).toEqual(['18.198.in-addr.arpa']);
    expect(names('198.18.0.0/23')).toEqual(['0.18.198.in-addr.arpa', '1.18.198.in-addr.arpa']);
    expect(names('192.0.2.64/26')).toEqual(['64-26.2.0.192.in-addr.arpa']);
    expect(reverseZonesOf(parseBlock('192.0.2.64/26'))[0]!.classless).toBe(true);
    expect(names('2001:db8:a::/48')).toEqual(['a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa']);
    expect(names('2001:db8::/31')).toEqual(['8.b.d.0.1.0.0.2.ip6.arpa', '9.b.d.0.1.0.0.2.ip6.arpa']);
    expect(names('2001:db8::/50')).toHaveLength(4);
    expect(names('2001:db8::/50')[1]).toBe('1.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
  });
});
