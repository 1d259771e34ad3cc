import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../src/domain/errors.js';
import { assertMayActFor, autoLinkDecision, hasFeature, isEffectivelySuspended, parseActAsHeader, type TenantNode } from '../../src/domain/tenancy.js';

const node = (id: string, type: TenantNode['type'], path: string[]): TenantNode => ({ id, type, path, suspended: false });
const platform = node('ten_p', 'platform', ['ten_p']);
const resellerA = node('ten_ra', 'reseller', ['ten_p', 'ten_ra']);
const resellerB = node('ten_rb', 'reseller', ['ten_p', 'ten_rb']);
const customerA = node('ten_ca', 'customer', ['ten_p', 'ten_ra', 'ten_ca']);
const customerB = node('ten_cb', 'customer', ['ten_p', 'ten_rb', 'ten_cb']);
const direct = node('ten_cd', 'customer', ['ten_p', 'ten_cd']);

const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return (e as DomainError).code;
  }
};

describe('act-as policy', () => {
  it.each([
    ['platform → direct customer', platform, direct, 'ok'],
    ["platform → reseller's customer", platform, customerA, 'ok'],
    ['reseller → own customer', resellerA, customerA, 'ok'],
    ["reseller → other reseller's customer", resellerA, customerB, 'act_as_not_allowed'],
    ["reseller → platform's direct customer", resellerA, direct, 'act_as_not_allowed'],
    ['platform → reseller (not a customer)', platform, resellerB, 'act_as_not_allowed'],
    ['customer → itself', customerA, customerA, 'act_as_not_allowed'],
  ])('%s', (_, token, target, expected) => {
    expect(code(() => assertMayActFor(token, target, target.id))).toBe(expected);
  });

  it('parses tenant ids and billing ids, and rejects anything else as a header problem', () => {
    expect(parseActAsHeader(' ten_abc ')).toEqual({ kind: 'tenant', id: 'ten_abc' });
    expect(parseActAsHeader('billing:C-100.2')).toEqual({ kind: 'billing', clientId: 'C-100.2' });
    for (const bad of ['abc', 'billing:', 'ten_ABC', 'billing:a b']) {
      try {
        parseActAsHeader(bad);
        expect.unreachable();
      } catch (e) {
        expect((e as DomainError).errors[0]).toMatchObject({ in: 'header', pointer: '/X-Act-As-Customer' });
      }
    }
  });

  it.each([
    ['production', 'platform', null, 'link'],
    ['production', 'platform', ['tenants.billing_link'], 'link'],
    ['production', 'platform', [], 'not_allowed'],
    ['production', 'reseller', null, 'unknown'],
    ['sandbox', 'platform', null, 'unknown'],
  ] as const)('auto-link: %s %s token with user permissions %j → %s', (deployment, type, perms, expected) => {
    expect(autoLinkDecision({ deployment, tokenTenantType: type, userPermissions: perms ? [...perms] : null })).toBe(expected);
  });
});

describe('inherited tenant state', () => {
  it('needs a feature on every tenant of the chain', () => {
    expect(hasFeature([{ features: ['dnssec'] }, { features: ['dnssec', 'rdns'] }], 'dnssec')).toBe(true);
    expect(hasFeature([{ features: [] }, { features: ['dnssec'] }], 'dnssec')).toBe(false);
  });
  it('suspends when any ancestor is suspended', () => {
    expect(isEffectivelySuspended([{ suspended: false }, { suspended: true }, { suspended: false }])).toBe(true);
    expect(isEffectivelySuspended([{ suspended: false }])).toBe(false);
  });
});
