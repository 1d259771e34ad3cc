// What the lab's parent zones hold (src/lab/parentRecords.ts), and owner names relative to the
// root, the one origin whose relative and absolute names are spelled alike.
import { describe, expect, it } from 'vitest';
import { normalizeOwner } from '../../src/domain/names.js';
import { labParentNames, labParentOf, parentRRsets } from '../../src/lab/parentRecords.js';
import { absoluteName, relativeName } from '../../nameserver/wire/name.js';

const NS = ['ns1.lab-dns.test', 'ns2.lab-dns.test'];
const ns = (...hosts: string[]) => hosts.map((nameserver) => ({ nameserver }));

describe('owners relative to an origin', () => {
  it.each([
    ['www.example.com', 'example.com', 'www'],
    ['example.com', 'example.com', '@'],
    ['test', '', 'test'],
    ['ns1.lab-dns.test', '', 'ns1.lab-dns.test'],
    ['', '', '@'],
    ['ns1.lab-dns.test', 'test', 'ns1.lab-dns'],
  ])('%j relative to %j is %j, and back', (name, origin, relative) => {
    expect(relativeName(name, origin)).toBe(relative);
    expect(absoluteName(relative, origin)).toBe(name);
  });

  it('reads owners of the root zone, absolute or relative', () => {
    expect(normalizeOwner('ns1.lab-dns.test.', '')).toBe('ns1.lab-dns.test');
    expect(normalizeOwner('test', '')).toBe('test');
    expect(normalizeOwner('@', '')).toBe('@');
  });
});

describe('the lab parent zones', () => {
  const zones = [
    { name: 'shop.test', delegation: null, ds: [] },
    { name: 'moved.test', delegation: ['ns1.elsewhere.example'], ds: [] },
    { name: 'blog.info', delegation: null, ds: [] },
  ];

  it('are the root, the lab TLDs, the reverse parents and the TLDs of zones and nameserver names', () => {
    expect(labParentNames(zones, [...NS, 'ns3.lab-dns.xyz'])).toEqual([
      '',
      'test',
      'example',
      'com',
      'net',
      'org',
      'de',
      'in-addr.arpa',
      'ip6.arpa',
      'info',
      'xyz',
    ]);
  });

  it('put reverse zones under in-addr.arpa and ip6.arpa, everything else under its TLD', () => {
    expect(labParentOf('2.0.192.in-addr.arpa')).toBe('in-addr.arpa');
    expect(labParentOf('64-26.100.51.198.in-addr.arpa')).toBe('in-addr.arpa');
    expect(labParentOf('a.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa')).toBe('ip6.arpa');
    expect(labParentOf('in-addr.arpa')).toBe('arpa');
    expect(labParentOf('shop.test')).toBe('test');
  });

  it('in-addr.arpa: delegations, and for an RFC 2317 classless zone a CNAME per address (§4)', () => {
    const reverse = [
      { name: '2.0.192.in-addr.arpa', delegation: null, ds: [] },
      { name: '252-30.100.51.198.in-addr.arpa', delegation: null, ds: [], classless: '198.51.100.252/30' },
    ];
    const cname = (n: number) => ({ name: `${n}.100.51.198`, type: 'CNAME', records: [{ target: `${n}.252-30.100.51.198.in-addr.arpa` }] });
    expect(parentRRsets('in-addr.arpa', [], reverse, NS)).toEqual([
      { name: '2.0.192', type: 'NS', records: ns(...NS) },
      { name: '252-30.100.51.198', type: 'NS', records: ns(...NS) },
      cname(252),
      cname(253),
      cname(254),
      cname(255),
    ]);
    expect(parentRRsets('test', [], reverse, NS).filter((r) => r.type !== 'A' && r.type !== 'AAAA')).toEqual([]);
  });

  it('root: every TLD delegated to the service, glue for the nameserver names', () => {
    expect(parentRRsets('', ['test', 'info'], zones, NS)).toEqual([
      { name: 'test', type: 'NS', records: ns(...NS) },
      { name: 'info', type: 'NS', records: ns(...NS) },
      { name: 'ns1.lab-dns.test', type: 'A', records: [{ address: '127.0.0.1' }] },
      { name: 'ns1.lab-dns.test', type: 'AAAA', records: [{ address: '::1' }] },
      { name: 'ns2.lab-dns.test', type: 'A', records: [{ address: '127.0.0.1' }] },
      { name: 'ns2.lab-dns.test', type: 'AAAA', records: [{ address: '::1' }] },
    ]);
  });

  it('TLD: its lab zones, delegated where the registry says, and the nameserver names inside it', () => {
    expect(parentRRsets('test', ['test', 'info'], zones, NS)).toEqual([
      { name: 'shop', type: 'NS', records: ns(...NS) },
      { name: 'moved', type: 'NS', records: ns('ns1.elsewhere.example') },
      { name: 'ns1.lab-dns', type: 'A', records: [{ address: '127.0.0.1' }] },
      { name: 'ns1.lab-dns', type: 'AAAA', records: [{ address: '::1' }] },
      { name: 'ns2.lab-dns', type: 'A', records: [{ address: '127.0.0.1' }] },
      { name: 'ns2.lab-dns', type: 'AAAA', records: [{ address: '::1' }] },
    ]);
    expect(parentRRsets('info', ['test', 'info'], zones, NS)).toEqual([{ name: 'blog', type: 'NS', records: ns(...NS) }]);
  });

  it('puts a DS set beside the delegation when the registry holds one', () => {
    const ds = [{ key_tag: 12345, algorithm: 13, digest_type: 2, digest: '00'.repeat(32) }];
    expect(parentRRsets('info', ['info'], [{ name: 'blog.info', delegation: null, ds }], NS)).toEqual([
      { name: 'blog', type: 'NS', records: ns(...NS) },
      { name: 'blog', type: 'DS', records: ds },
    ]);
  });
});
