import { describe, expect, it } from 'vitest';
import { absoluteName } from '../../nameserver/wire/name.js';
import { NameError, canonicalName, isReverseZoneName, normalizeHostname, normalizeOwner, toAsciiName } from '../../src/domain/names.js';

const label = (n: number, ch = 'a') => ch.repeat(n);
/** A name of exactly `length` characters made of 63-character labels and a shorter last one. */
function nameOfLength(length: number): string {
  const labels: string[] = [];
  let left = length;
  while (left > 0) {
    const n = Math.min(63, left === 64 ? 62 : left); // never leave a lone dot
    labels.push(label(n));
    left -= n + 1;
  }
  const name = labels.join('.');
  expect(name.length).toBe(length);
  return name;
}

function nameErrorOf(fn: () => unknown): NameError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(NameError);
    return e as NameError;
  }
  throw new Error('expected a NameError');
}

describe('NameError', () => {
  it('carries a code and uses the detail as its message', () => {
    const e = new NameError('empty_label', 'The name has an empty label.');
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('empty_label');
    expect(e.message).toBe('The name has an empty label.');
  });
});

describe('toAsciiName', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['  www.example.com.  ', 'www.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['BÜCHER.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['www.bücher.example', 'www.xn--bcher-kva.example'],
    ['faß.de', 'xn--fa-hia.de'], // IDNA2008 / nontransitional: ß stays ß
    ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
    ['bücher。example', 'xn--bcher-kva.example'], // ideographic full stop separates labels (UTS #46)
    ['_dmarc.example.com', '_dmarc.example.com'],
    ['_sip._tcp.example.com', '_sip._tcp.example.com'],
    ['a_b.example.com', 'a_b.example.com'],
    ['*.example.com', '*.example.com'],
    ['*', '*'],
    ['localhost', 'localhost'],
    ['1.2.3.4.in-addr.arpa', '1.2.3.4.in-addr.arpa'],
    ['a-b.example', 'a-b.example'],
    ['123.example', '123.example'],
    [`${label(63)}.example`, `${label(63)}.example`],
    [nameOfLength(253), nameOfLength(253)],
    [`${nameOfLength(253)}.`, nameOfLength(253)],
  ])('%s → %s', (input, expected) => {
    expect(toAsciiName(input)).toBe(expected);
  });

  it.each([
    ['', 'empty_name'],
    ['   ', 'empty_name'],
    ['.', 'empty_name'],
    ['example.com..', 'empty_label'], // only ONE trailing dot is stripped
    ['a..b', 'empty_label'],
    ['.example.com', 'empty_label'],
    [`${label(64)}.example`, 'label_too_long'],
    [`${'ü'.repeat(60)}.example`, 'label_too_long'], // the A-label is what counts
    [nameOfLength(254), 'name_too_long'],
    ['exa mple.com', 'invalid_character'],
    ['exa!mple.com', 'invalid_character'],
    ['exa/mple.com', 'invalid_character'],
    ['@.example.com', 'invalid_character'],
    ['-a.example.com', 'invalid_hyphen'],
    ['a-.example.com', 'invalid_hyphen'],
    ['-bü.example', 'invalid_hyphen'],
    ['www.*.example.com', 'invalid_wildcard'],
    ['**.example.com', 'invalid_wildcard'],
    ['*a.example.com', 'invalid_wildcard'],
    ['a*.example.com', 'invalid_wildcard'],
    ['example.*', 'invalid_wildcard'],
    ['xn--zz.example', 'invalid_a_label'],
    ['xn--.example', 'invalid_a_label'],
    ['\u200d.example', 'invalid_character'], // a lone joiner maps to nothing
  ])('rejects %j with %s', (input, code) => {
    expect(nameErrorOf(() => toAsciiName(input)).code).toBe(code);
  });
});

describe('normalizeOwner', () => {
  const zone = 'example.com';
  it.each([
    ['@', '@'],
    ['', '@'],
    ['  ', '@'],
    ['example.com', '@'],
    ['example.com.', '@'],
    ['EXAMPLE.com.', '@'],
    ['www', 'www'],
    ['WWW', 'www'],
    ['www.example.com.', 'www'],
    ['_dmarc', '_dmarc'],
    ['_dmarc.example.com.', '_dmarc'],
    ['*.dev', '*.dev'],
    ['*.example.com.', '*'],
    ['*', '*'],
    ['a.b', 'a.b'],
    ['bücher', 'xn--bcher-kva'],
    ['_443._tcp.www', '_443._tcp.www'],
    // Without a trailing dot the input is relative, even when it looks absolute.
    ['www.example.com', 'www.example.com'],
    ['www.other.org', 'www.other.org'],
  ])('%j in example.com → %j', (input, expected) => {
    expect(normalizeOwner(input, zone)).toBe(expected);
  });

  it('accepts the zone name in any form', () => {
    expect(normalizeOwner('www', 'Example.COM.')).toBe('www');
    expect(normalizeOwner('www.bücher.example.', 'xn--bcher-kva.example')).toBe('www');
    expect(normalizeOwner('bücher.example', 'xn--bcher-kva.example')).toBe('@');
  });

  it.each([
    ['www.other.org.', 'outside_zone'],
    ['com.', 'outside_zone'],
    ['notexample.com.', 'outside_zone'], // a suffix match must be at a label boundary
    ['a..b', 'empty_label'],
    ['www.*', 'invalid_wildcard'],
    ['a.*.b', 'invalid_wildcard'],
    ['-www', 'invalid_hyphen'],
    ['w w', 'invalid_character'],
    [label(64), 'label_too_long'],
  ])('rejects %j with %s', (input, code) => {
    expect(nameErrorOf(() => normalizeOwner(input, zone)).code).toBe(code);
  });

  it('limits the ABSOLUTE name to 253 characters', () => {
    const room = 253 - zone.length - 1; // 241
    const fits = nameOfLength(room);
    expect(normalizeOwner(fits, zone)).toBe(fits);
    expect(normalizeOwner(`${fits}.${zone}.`, zone)).toBe(fits);
    const error = nameErrorOf(() => normalizeOwner(nameOfLength(room + 1), zone));
    expect(error.code).toBe('name_too_long');
  });
});

describe('absoluteName', () => {
  it.each([
    ['@', 'example.com', 'example.com'],
    ['www', 'example.com', 'www.example.com'],
    ['*.dev', 'example.com', '*.dev.example.com'],
    ['_sip._tcp', 'example.com', '_sip._tcp.example.com'],
  ])('%s in %s → %s', (relative, zone, expected) => {
    expect(absoluteName(relative, zone)).toBe(expected);
  });

  it('round-trips with normalizeOwner', () => {
    for (const owner of ['@', 'www', '*.dev', 'a.b']) {
      expect(normalizeOwner(`${absoluteName(owner, 'example.com')}.`, 'example.com')).toBe(owner);
    }
  });
});

describe('normalizeHostname', () => {
  it.each([
    ['mail.example.com', 'mail.example.com'],
    ['mail.example.com.', 'mail.example.com'],
    ['MAIL.Example.COM.', 'mail.example.com'],
    [' mail.example.com ', 'mail.example.com'],
    ['mail.bücher.example', 'mail.xn--bcher-kva.example'],
    ['_acme-challenge.example.org', '_acme-challenge.example.org'],
    ['dkim._domainkey.example.org.', 'dkim._domainkey.example.org'],
    ['1.2.3.4.5', '1.2.3.4.5'], // five labels are not an address
    ['host.123', 'host.123'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeHostname(input)).toBe(expected);
  });

  it('allows the root only with allowRoot', () => {
    expect(normalizeHostname('.', { allowRoot: true })).toBe('.');
    expect(normalizeHostname(' . ', { allowRoot: true })).toBe('.');
    expect(nameErrorOf(() => normalizeHostname('.')).code).toBe('root_not_allowed');
    expect(normalizeHostname('mx.example.net.', { allowRoot: true })).toBe('mx.example.net');
  });

  it.each([
    ['192.0.2.1', 'ip_not_allowed'],
    ['192.0.2.1.', 'ip_not_allowed'],
    ['2001:db8::1', 'ip_not_allowed'],
    ['[2001:db8::1]', 'ip_not_allowed'],
    ['::ffff:192.0.2.1', 'ip_not_allowed'],
    ['mail', 'single_label'],
    ['mail.', 'single_label'],
    ['*.example.com', 'invalid_wildcard'],
    ['a.*.example.com', 'invalid_wildcard'],
    ['', 'empty_name'],
    ['a..example.com', 'empty_label'],
    ['mail.example.com..', 'empty_label'],
    ['mail server.example.com', 'invalid_character'],
    [`${label(64)}.example.com`, 'label_too_long'],
    [nameOfLength(254), 'name_too_long'],
  ])('rejects %j with %s', (input, code) => {
    expect(nameErrorOf(() => normalizeHostname(input)).code).toBe(code);
  });

  it('suggests the fully-qualified form for a single label', () => {
    expect(nameErrorOf(() => normalizeHostname('Mail')).message).toMatch(/fully-qualified.*"mail\.example\.com"/);
  });
});

describe('isReverseZoneName', () => {
  it.each([
    ['in-addr.arpa', true],
    ['2.0.192.in-addr.arpa', true],
    ['0-26.2.0.192.in-addr.arpa.', true],
    ['8.b.d.0.1.0.0.2.ip6.arpa', true],
    ['IP6.ARPA.', true],
    ['ip6.arpa', true],
    ['arpa', false],
    ['example.com', false],
    ['in-addr.arpa.example.com', false],
    ['notin-addr.arpa', false],
    ['xip6.arpa', false],
  ])('%s → %s', (name, expected) => {
    expect(isReverseZoneName(name)).toBe(expected);
  });
});

describe('canonicalName', () => {
  it.each([
    ['Server.Example.COM.', 'server.example.com'],
    [' NS1.Lab-DNS.test ', 'ns1.lab-dns.test'],
    ['server.example.com', 'server.example.com'],
    // One final dot: the root stays the root.
    ['.', '.'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(canonicalName(input)).toBe(expected);
  });

  it('spells a valid name as toAsciiName and normalizeHostname do', () => {
    for (const name of ['Mail.Example.NET.', 'WWW.xn--bcher-kva.Example', '_Dmarc.Example.org.']) {
      expect(canonicalName(name)).toBe(toAsciiName(name));
      expect(canonicalName(name)).toBe(normalizeHostname(name));
    }
  });
});
