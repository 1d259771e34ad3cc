// Credential policies as docs/credentials.md states them: the pattern semantics, the order of
// the rules, addresses as sockets report them, validation with pointers, and "within" for minting.
import { describe, expect, it } from 'vitest';
import {
  type CredentialPolicy,
  nameMatchesPattern,
  normalizeCredentialPolicy,
  policyAllowsZone,
  policyRefusal,
  policyWiderThan,
} from '../../src/domain/credentialPolicy.js';
import { DomainError } from '../../src/domain/errors.js';

const now = new Date('2026-11-28T12:00:00Z');

describe('name patterns', () => {
  it.each([
    // pattern, name, matches
    ['_acme-challenge.*', '_acme-challenge.www.example.test', true],
    ['_acme-challenge.*', '_acme-challenge.example.test', true],
    ['_acme-challenge.*', '_acme-challenge', false],
    ['_acme-challenge.*', 'www._acme-challenge.example.test', false],
    ['_acme-challenge.*', '_acme-challengex.example.test', false],
    ['_acme-challenge.www.*', '_acme-challenge.www.example.test', true],
    ['_acme-challenge.www.*', '_acme-challenge.mail.example.test', false],
    ['*.dyn.example.test', 'home.dyn.example.test', true],
    ['*.dyn.example.test', 'a.b.dyn.example.test', true],
    ['*.dyn.example.test', '*.dyn.example.test', true],
    ['*.dyn.example.test', 'dyn.example.test', false],
    ['*.dyn.example.test', 'xdyn.example.test', false],
    ['www.example.test', 'www.example.test', true],
    ['www.example.test', 'a.www.example.test', false],
    ['example.test', 'example.test', true],
  ])('%s against %s: %s', (pattern, name, matches) => {
    expect(nameMatchesPattern(pattern, name)).toBe(matches);
  });
});

describe('normalizeCredentialPolicy', () => {
  it('stores names, zones, types and blocks in one spelling, and drops repeats', () => {
    const policy = normalizeCredentialPolicy(
      {
        zones: ['Example.TEST.', 'example.test', 'bücher.test'],
        names: ['_ACME-Challenge.*.', '*.Dyn.Example.Test', 'www.example.test.'],
        types: ['txt', 'A', 'TXT'],
        source_cidrs: ['203.0.113.0/24', '2001:DB8::/32', '192.0.2.7'],
        expires_at: '2027-01-01T01:00:00+01:00',
      },
      now,
    );
    expect(policy).toEqual({
      zones: ['example.test', 'xn--bcher-kva.test'],
      names: ['_acme-challenge.*', '*.dyn.example.test', 'www.example.test'],
      types: ['TXT', 'A'],
      source_cidrs: ['203.0.113.0/24', '2001:db8::/32', '192.0.2.7/32'],
      expires_at: '2027-01-01T00:00:00.000Z',
    });
  });

  it('takes an empty policy for none', () => {
    expect(normalizeCredentialPolicy({}, now)).toBeNull();
  });

  it('points at every bad entry', () => {
    let error: unknown;
    try {
      normalizeCredentialPolicy(
        {
          zones: ['ok.test', '*.example.test'],
          names: ['*', 'a.*.b.test', '*.*', '_acme*.example.test', 'good.example.test'],
          types: ['TXT', 'SOA', 'BOGUS', 'type65534', 'TYPE1', 'https'],
          source_cidrs: ['10.0.0.0/8', '10.0.0.1/8', 'not-an-address', '::ffff:10.0.0.1'],
          expires_at: '2026-11-28T11:59:59Z',
        },
        now,
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    const errors = (error as DomainError).errors.map((e) => [e.pointer, e.code]);
    expect(errors).toEqual([
      ['/policy/zones/1', 'invalid_wildcard'],
      ['/policy/names/0', 'pattern_matches_everything'],
      ['/policy/names/1', 'invalid_wildcard'],
      ['/policy/names/2', 'invalid_wildcard'],
      ['/policy/names/3', 'invalid_wildcard'],
      ['/policy/types/1', 'unknown_type'],
      ['/policy/types/2', 'unknown_type'],
      // TYPE1 is A's number: written by its name, never as an opaque type.
      ['/policy/types/4', 'unknown_type'],
      ['/policy/source_cidrs/1', 'not_network_address'],
      ['/policy/source_cidrs/2', 'invalid_ip'],
      ['/policy/source_cidrs/3', 'ipv4_mapped_address'],
      ['/policy/expires_at', 'in_the_past'],
    ]);
  });
});

describe('policyRefusal', () => {
  const acme: CredentialPolicy = { zones: ['a.test'], names: ['_acme-challenge.*'], types: ['TXT'] };
  const use = (over: Partial<Parameters<typeof policyRefusal>[1]>) => ({ source: '127.0.0.1', now, ...over });

  it('allows everything without a policy', () => {
    expect(policyRefusal(null, use({ zone: 'b.test', name: null, type: null }))).toBeNull();
  });

  it('names the first rule that refuses', () => {
    expect(policyRefusal(acme, use({ zone: 'a.test', name: '_acme-challenge.www.a.test', type: 'TXT' }))).toBeNull();
    expect(policyRefusal(acme, use({ zone: 'a.test', name: '_acme-challenge.www.a.test', type: 'A' }))?.rule).toBe('types');
    expect(policyRefusal(acme, use({ zone: 'a.test', name: 'www.a.test', type: 'TXT' }))?.rule).toBe('names');
    expect(policyRefusal(acme, use({ zone: 'b.test', name: '_acme-challenge.b.test', type: 'TXT' }))?.rule).toBe('zones');
    expect(policyRefusal({ ...acme, expires_at: now.toISOString() }, use({ zone: 'b.test' }))?.rule).toBe('expired');
    expect(policyRefusal({ ...acme, source_cidrs: ['10.0.0.0/8'] }, use({ zone: 'b.test' }))?.rule).toBe('source_cidrs');
  });

  it('refuses a write to the whole zone where names or types are restricted', () => {
    expect(policyRefusal({ zones: ['a.test'] }, use({ zone: 'a.test', name: null, type: null }))).toBeNull();
    expect(policyRefusal(acme, use({ zone: 'a.test', name: null, type: null }))?.rule).toBe('names');
    expect(policyRefusal({ types: ['TXT'] }, use({ zone: 'a.test', name: null, type: null }))?.rule).toBe('types');
  });

  it('checks only what the use names', () => {
    expect(policyRefusal(acme, use({}))).toBeNull();
    expect(policyRefusal(acme, use({ zone: 'a.test' }))).toBeNull();
    expect(policyAllowsZone(acme, 'a.test')).toBe(true);
    expect(policyAllowsZone(acme, 'b.test')).toBe(false);
    expect(policyAllowsZone(null, 'b.test')).toBe(true);
  });

  it('reads client addresses as sockets report them, and refuses an unknown one', () => {
    const local: CredentialPolicy = { source_cidrs: ['127.0.0.0/8', '2001:db8::/32'] };
    expect(policyRefusal(local, use({ source: '127.0.0.1' }))).toBeNull();
    expect(policyRefusal(local, use({ source: '::ffff:127.0.0.1' }))).toBeNull();
    expect(policyRefusal(local, use({ source: '2001:db8::53' }))).toBeNull();
    expect(policyRefusal(local, use({ source: 'fe80::1%eth0' }))?.rule).toBe('source_cidrs');
    expect(policyRefusal(local, use({ source: '10.1.2.3' }))?.rule).toBe('source_cidrs');
    expect(policyRefusal(local, use({ source: null }))?.rule).toBe('source_cidrs');
  });

  it('expires at the instant given', () => {
    const policy = { expires_at: '2026-11-28T12:00:01.000Z' };
    expect(policyRefusal(policy, use({}))).toBeNull();
    expect(policyRefusal(policy, use({ now: new Date('2026-11-28T12:00:01Z') }))?.rule).toBe('expired');
  });
});

describe('policyWiderThan (minting within one’s own policy)', () => {
  const outer: CredentialPolicy = {
    zones: ['a.test', 'b.test'],
    names: ['_acme-challenge.*', '*.dyn.a.test'],
    types: ['TXT', 'A'],
    source_cidrs: ['10.0.0.0/8'],
    expires_at: '2027-01-01T00:00:00.000Z',
  };

  it('accepts anything under no policy, and the same or a narrower one', () => {
    expect(policyWiderThan(null, null)).toBeNull();
    expect(policyWiderThan(outer, outer)).toBeNull();
    expect(
      policyWiderThan(
        {
          zones: ['a.test'],
          names: ['_acme-challenge.www.*', '_acme-challenge.www.a.test', 'h.dyn.a.test', '*.x.dyn.a.test'],
          types: ['TXT'],
          source_cidrs: ['10.1.0.0/16'],
          expires_at: '2026-12-01T00:00:00.000Z',
        },
        outer,
      ),
    ).toBeNull();
  });

  it('names the first rule that would widen', () => {
    expect(policyWiderThan(null, outer)).toBe('expired');
    expect(policyWiderThan({ ...outer, expires_at: '2027-06-01T00:00:00.000Z' }, outer)).toBe('expired');
    expect(policyWiderThan({ ...outer, source_cidrs: ['10.0.0.0/7'] }, outer)).toBe('source_cidrs');
    expect(policyWiderThan({ ...outer, zones: ['c.test'] }, outer)).toBe('zones');
    expect(policyWiderThan({ ...outer, names: ['*.a.test'] }, outer)).toBe('names');
    expect(policyWiderThan({ ...outer, names: ['dyn.a.test'] }, outer)).toBe('names');
    expect(policyWiderThan({ ...outer, names: ['_acme.*'] }, outer)).toBe('names');
    expect(policyWiderThan({ ...outer, types: ['TXT', 'AAAA'] }, outer)).toBe('types');
    const { types: _t, ...noTypes } = outer;
    expect(policyWiderThan(noTypes, outer)).toBe('types');
  });
});
