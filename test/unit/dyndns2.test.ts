// The dyndns2 protocol as routers send it (docs/dyndns.md): credentials, host lists, addresses,
// the client's address behind trusted proxies only, and the answers' lines and statuses.
import { describe, expect, it } from 'vitest';
import {
  clientAddress,
  Dyndns2InputError,
  formatDyndns2Answers,
  formatDyndns2Refusal,
  MAX_HOSTNAMES,
  parseDyndns2Request,
  parseTrustedProxies,
} from '../../src/dyndns/dyndns2.js';
import { formatAddress } from '../../src/domain/ip/address.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const text = (a: { family: 4 | 6; value: bigint } | null) => (a ? formatAddress(a) : null);

describe('parseDyndns2Request', () => {
  it('reads Basic auth first, else the query’s credentials (a colon may be in the password)', () => {
    expect(parseDyndns2Request({ username: 'q', password: 'p' }, { authorization: basic('dyn_x', 'a:b') }, null, 'sandbox')).toMatchObject({
      username: 'dyn_x',
      password: 'a:b',
    });
    expect(parseDyndns2Request({ user: 'dyn_y', pass: 'secret' }, {}, null, 'sandbox')).toMatchObject({ username: 'dyn_y', password: 'secret' });
    expect(parseDyndns2Request({}, { authorization: 'Bearer x' }, null, 'sandbox')).toMatchObject({ username: null, password: null });
  });

  it('splits host lists, repeated or comma-separated; absent or empty means the credentials’ host', () => {
    expect(parseDyndns2Request({ hostname: 'a.example, b.example' }, {}, null, 'sandbox').hostnames).toEqual(['a.example', 'b.example']);
    expect(parseDyndns2Request({ hostname: ['a.example', 'c.example'] }, {}, null, 'sandbox').hostnames).toEqual(['a.example', 'c.example']);
    expect(parseDyndns2Request({ hostname: '' }, {}, null, 'sandbox').hostnames).toBeNull();
    expect(parseDyndns2Request({}, {}, null, 'sandbox').hostnames).toBeNull();
  });

  it.each([
    [{ myip: '192.0.2.1' }, '192.0.2.1', null],
    [{ myip: '2001:DB8::1' }, null, '2001:db8::1'],
    [{ myip: '192.0.2.1,2001:db8::1' }, '192.0.2.1', '2001:db8::1'],
    [{ myip: '192.0.2.1', myipv6: '2001:db8::2' }, '192.0.2.1', '2001:db8::2'],
    [{ myip: '::ffff:192.0.2.9' }, '192.0.2.9', null],
    [{ myip: '' }, null, null],
  ])('reads %j as IPv4 %s and IPv6 %s', (query, v4, v6) => {
    const r = parseDyndns2Request(query, {}, null, 'sandbox');
    expect([text(r.ipv4), text(r.ipv6)]).toEqual([v4, v6]);
  });

  it.each([{ myip: 'router' }, { myip: '192.0.2.1,192.0.2.2' }, { myipv6: '2001:db8::1,2001:db8::2' }, { myip: '300.1.1.1' }])('refuses %j', (query) => {
    expect(() => parseDyndns2Request(query, {}, null, 'sandbox')).toThrow(Dyndns2InputError);
  });

  it.each(['0.0.0.0', '255.255.255.255', '127.0.0.1', '::ffff:127.0.0.1', 'fe80::1', 'fe80::1%eth0', '2001:db8::1%eth0', '[fe80::1%25eth0]', 'ff02::1', '::'])(
    'refuses the unreachable address %s (myip and myipv6)',
    (ip) => {
      expect(() => parseDyndns2Request({ myip: ip }, {}, null, 'sandbox')).toThrow(Dyndns2InputError);
      expect(() => parseDyndns2Request({ myipv6: ip }, {}, null, 'production')).toThrow(Dyndns2InputError);
    },
  );

  it('takes documentation addresses in the sandbox only', () => {
    expect(text(parseDyndns2Request({ myip: '192.0.2.1' }, {}, null, 'sandbox').ipv4)).toBe('192.0.2.1');
    expect(() => parseDyndns2Request({ myip: '192.0.2.1' }, {}, null, 'production')).toThrow(/documentation/);
    expect(() => parseDyndns2Request({ myip: '2001:db8::1' }, {}, null, 'production')).toThrow(Dyndns2InputError);
    expect(text(parseDyndns2Request({ myip: '93.184.215.14' }, {}, null, 'production').ipv4)).toBe('93.184.215.14');
  });

  it(`takes ${MAX_HOSTNAMES} host names; more is numhost (200, one line), counted after splitting`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example`);
    expect(parseDyndns2Request({ hostname: list(MAX_HOSTNAMES).join(',') }, {}, null, 'sandbox').hostnames).toHaveLength(MAX_HOSTNAMES);
    // Empty items are no names: 20 names and a stray comma are 20.
    expect(parseDyndns2Request({ hostname: `${list(MAX_HOSTNAMES).join(',')},` }, {}, null, 'sandbox').hostnames).toHaveLength(MAX_HOSTNAMES);
    for (const query of [{ hostname: list(MAX_HOSTNAMES + 1).join(',') }, { hostname: [list(10).join(','), ...list(11)] }]) {
      let refused: unknown;
      try {
        parseDyndns2Request(query, {}, null, 'sandbox');
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(Dyndns2InputError);
      expect(formatDyndns2Refusal(refused as Dyndns2InputError)).toEqual({ status: 200, body: 'numhost\n', headers: {} });
    }
    expect(formatDyndns2Refusal(new Dyndns2InputError('bad address'))).toEqual({ status: 400, body: 'dnserr\n', headers: {} });
  });

  it('reads offline=YES in the forms clients send, anything else as online', () => {
    for (const v of ['YES', 'yes', '1', 'true']) expect(parseDyndns2Request({ offline: v }, {}, null, 'sandbox').offline).toBe(true);
    for (const v of ['NO', '', 'maybe']) expect(parseDyndns2Request({ offline: v }, {}, null, 'sandbox').offline).toBe(false);
  });
});

describe('clientAddress', () => {
  const trusted = parseTrustedProxies(['10.0.0.0/8', '2001:db8:ffff::1']);
  it.each([
    ['an untrusted peer: its header is ignored', '198.51.100.1', '203.0.113.5', '198.51.100.1'],
    ['a trusted proxy: the client it names', '10.1.2.3', '203.0.113.5', '203.0.113.5'],
    ['the right-most untrusted hop, not what the client wrote on the left', '10.1.2.3', '1.2.3.4, 203.0.113.5, 10.9.9.9', '203.0.113.5'],
    ['a dual-stack socket’s IPv4-mapped peer', '::ffff:10.1.2.3', '203.0.113.6', '203.0.113.6'],
    ['a trusted IPv6 proxy', '2001:db8:ffff::1', '2001:db8::77', '2001:db8::77'],
    ['garbage in the header: the peer', '10.1.2.3', 'unknown', '10.1.2.3'],
    ['only trusted hops: the peer', '10.1.2.3', '10.0.0.1', '10.1.2.3'],
  ])('%s', (_, peer, header, expected) => {
    expect(text(clientAddress(peer, header, trusted))).toBe(expected);
  });
  it('trusts nothing without DYNDNS_TRUSTED_PROXIES', () => {
    expect(text(clientAddress('10.1.2.3', '203.0.113.5', []))).toBe('10.1.2.3');
  });
});

describe('formatDyndns2Answers', () => {
  it('writes one line per host; 200 unless every line is badauth (401 with a Basic challenge)', () => {
    expect(formatDyndns2Answers([{ code: 'good', ip: '192.0.2.1' }, { code: 'nohost' }])).toEqual({
      status: 200,
      body: 'good 192.0.2.1\nnohost\n',
      headers: {},
    });
    const bad = formatDyndns2Answers([{ code: 'badauth' }]);
    expect([bad.status, bad.body]).toEqual([401, 'badauth\n']);
    expect(bad.headers['WWW-Authenticate']).toMatch(/^Basic realm=/);
  });
});
