// The one classification of addresses (src/domain/ip/addressKind.ts, RFC 6890's registries) and
// the two policies that read it: webhook receivers (docs/webhooks.md "URL safety") and what a
// router may publish (docs/dyndns.md "Addresses a router may publish").
import { describe, expect, it } from 'vitest';
import { unpublishableAddress } from '../../src/domain/dyndns.js';
import { parseAddress } from '../../src/domain/ip/address.js';
import { addressKind } from '../../src/domain/ip/addressKind.js';

const kind = (text: string) => addressKind(parseAddress(text, { mapped: 'keep' }));

describe('addressKind', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'this_network'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['fe80::1', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['100::1', 'reserved'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['192.0.0.8', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.255', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['8.8.8.8', 'global'],
    ['172.32.0.1', 'global'],
    ['2606:4700::1111', 'global'],
    ['2001:db9::1', 'global'],
  ])('%s is %s', (address, expected) => {
    expect(kind(address)).toBe(expected);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['::ffff:8.8.8.8', 'global'],
    ['64:ff9b::808:808', 'global'],
  ])('an IPv4-mapped or NAT64 address is its IPv4 address: %s is %s', (address, expected) => {
    expect(kind(address)).toBe(expected);
  });
});

describe('unpublishableAddress (dyndns)', () => {
  const refused = (text: string, deployment: 'sandbox' | 'production') => unpublishableAddress(parseAddress(text, { mapped: 'keep' }), deployment);

  it.each([
    '0.0.0.0',
    '0.1.2.3',
    '255.255.255.255',
    '240.0.0.1',
    '127.0.0.1',
    '169.254.1.1',
    '224.0.0.1',
    '::',
    '::1',
    'fe80::1',
    'ff02::1',
    '100::1',
    '::ffff:127.0.0.1',
  ])('refuses %s everywhere', (address) => {
    expect(refused(address, 'sandbox')).not.toBeNull();
    expect(refused(address, 'production')).not.toBeNull();
  });
  it.each(['192.0.2.1', '198.51.100.1', '203.0.113.1', '2001:db8::1'])('allows the documentation address %s in the sandbox only', (address) => {
    expect(refused(address, 'sandbox')).toBeNull();
    expect(refused(address, 'production')).toBe('documentation');
  });
  it.each(['8.8.8.8', '10.0.0.1', '192.168.178.20', '100.64.1.1', 'fd00::1', '2606:4700::1111'])('publishes %s everywhere', (address) => {
    expect(refused(address, 'sandbox')).toBeNull();
    expect(refused(address, 'production')).toBeNull();
  });
});
