// Credential policies (docs/credentials.md): what an API token or a TSIG key may touch beyond
// what its scopes say. One shape for both, stored, presented and checked as it is written here:
//
//   { "zones": ["example.test"], "names": ["_acme-challenge.*"], "types": ["TXT"],
//     "source_cidrs": ["203.0.113.0/24"], "expires_at": "2027-01-01T00:00:00.000Z" }
//
// Every field is optional; an absent field restricts nothing, and a credential without a policy
// is governed by its scopes alone. Names are absolute (lower case, A-labels, no trailing dot), as
// every name in the API's answers; a pattern's `*` is one whole label, first or last:
//
//   www.example.test      exactly that name
//   *.dyn.example.test    one or more labels before dyn.example.test (not dyn.example.test itself)
//   _acme-challenge.*     _acme-challenge followed by one or more labels: the DNS-01 challenge
//                         name of any host, in whichever zones `zones` allows
//
// Pure: the services check writes with policyRefusal at the write seam, the API every request's
// source address and expiry, and later the RFC 2136 update the same way.
import { z } from 'zod';
import { type Address, type Block, blockContains, blockWithin, formatBlock, parseAddress, parseBlock } from './ip/address.js';
import { type FieldError, validationFailed } from './errors.js';
import { NameError, toAsciiName } from './names.js';
import { isRecordType, RECORD_TYPES } from './records/types.js';

export interface CredentialPolicy {
  /** Zone names (of the credential's tenant) it may touch; absent: all of them. */
  zones?: string[];
  /** Owner-name patterns it may write (see above); absent: every name. */
  names?: string[];
  /** Record types it may write; absent: every type. */
  types?: string[];
  /** Client addresses it may be used from (the API's TCP peer, a DNS client's address); absent: anywhere. */
  source_cidrs?: string[];
  /** RFC 3339, UTC: from then on everything is refused. */
  expires_at?: string;
}

/** The rules a refusal names: the policy's fields, and `expired` for `expires_at`. */
export const POLICY_RULES = ['zones', 'names', 'types', 'source_cidrs', 'expired'] as const;
export type PolicyRule = (typeof POLICY_RULES)[number];

export interface PolicyRefusal {
  rule: PolicyRule;
  /** English, for logs and audit entries; the API's problem is worded by the error catalogue. */
  detail: string;
}

/**
 * One use of a credential. Fields left out are not checked: a request that names no zone is
 * checked against source and expiry only, a zone-level read against the zones as well.
 */
export interface CredentialUse {
  zone?: string;
  /**
   * The absolute owner name written. `null`: the write covers the whole zone (its settings, its
   * creation or deletion, DNSSEC), which only a policy without `names` allows.
   */
  name?: string | null;
  /** The record type written; `null`: every type (a whole-zone write), allowed only without `types`. */
  type?: string | null;
  /** The client's address; null where unknown (a policy with source_cidrs then refuses). */
  source: string | null;
  now: Date;
}

const MAX_ENTRIES = 100;

/** The input shape (the API validates it with this schema; normalizeCredentialPolicy does the rest). */
export const credentialPolicyInput = z
  .strictObject({
    zones: z.array(z.string().max(255)).min(1).max(MAX_ENTRIES).optional().describe('Zone names; absent: every zone of the tenant.'),
    names: z
      .array(z.string().max(255))
      .min(1)
      .max(MAX_ENTRIES)
      .optional()
      .describe(
        'Absolute owner names; `*` as the whole first label matches one or more leading labels (`*.dyn.example.test`), as the whole last label one or more trailing labels (`_acme-challenge.*`). Absent: every name.',
      ),
    types: z.array(z.string().max(10)).min(1).max(RECORD_TYPES.length).optional().describe('Record types; absent: every type.'),
    source_cidrs: z
      .array(z.string().max(50))
      .min(1)
      .max(MAX_ENTRIES)
      .optional()
      .describe('Client address blocks (a bare address is a /32 or /128); absent: any address.'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('From then on every use is refused (403 `credential_policy`, rule `expired`).'),
  })
  .describe('A credential policy (docs/credentials.md); every field optional, `{}` restricts nothing.');

export type CredentialPolicyInput = z.output<typeof credentialPolicyInput>;

/** The policy as stored and presented: normalised (names as stored, types upper case, blocks in one form, the expiry in UTC). */
export const credentialPolicySchema = z
  .object({
    zones: z.array(z.string()).optional(),
    names: z.array(z.string()).optional(),
    types: z.array(z.string()).optional(),
    source_cidrs: z.array(z.string()).optional(),
    expires_at: z.string().optional(),
  })
  .describe('A credential policy as stored (docs/credentials.md).');

function normalizeZone(input: string): string {
  const name = toAsciiName(input);
  if (name.includes('*')) throw new NameError('invalid_wildcard', 'A zone name cannot contain a wildcard.');
  return name;
}

/** A names pattern in its stored form; throws NameError. */
function normalizeNamePattern(input: string): string {
  const text = input.trim().replace(/\.$/, '');
  if (text === '*') throw new NameError('pattern_matches_everything', 'The pattern "*" matches every name: leave `names` out instead.');
  if (text.endsWith('.*')) {
    const prefix = toAsciiName(text.slice(0, -2));
    if (prefix.includes('*')) throw new NameError('invalid_wildcard', `"${input}" has two "*" labels; a pattern has at most one, first or last.`);
    return `${prefix}.*`;
  }
  try {
    return toAsciiName(text);
  } catch (e) {
    if (e instanceof NameError && e.code === 'invalid_wildcard') {
      throw new NameError(
        'invalid_wildcard',
        `"*" stands only as a whole label, first ("*.dyn.example.test") or last ("_acme-challenge.*"), not in "${input}".`,
      );
    }
    throw e;
  }
}

/** Whether `name` (absolute, canonical) matches a stored pattern. */
export function nameMatchesPattern(pattern: string, name: string): boolean {
  if (pattern.startsWith('*.')) return name.endsWith(pattern.slice(1));
  if (pattern.endsWith('.*')) return name.startsWith(pattern.slice(0, -1)) && name.length > pattern.length - 1;
  return name === pattern;
}

/** A client block: `address/length`, or a bare address for itself alone. */
function parseSourceBlock(text: string): Block {
  const t = text.trim();
  if (t.includes('/')) return parseBlock(t);
  const a = parseAddress(t);
  return { family: a.family, network: a.value, prefixLength: a.family === 4 ? 32 : 128 };
}

/** A peer address as the socket reports it; an IPv4-mapped IPv6 address (::ffff:192.0.2.1) is its IPv4 address. */
function clientAddress(text: string): Address | null {
  try {
    const a = parseAddress(text.replace(/%.*$/, ''), { mapped: 'keep' });
    if (a.family === 6 && a.value >> 32n === 0xffffn) return { family: 4, value: a.value & 0xffffffffn };
    return a;
  } catch {
    return null;
  }
}

const uniq = <T>(items: T[]) => [...new Set(items)];

/**
 * Validates and normalises a policy given on input (`at`: the JSON pointer of the policy in the
 * request body): names and zones to their stored spelling, types to upper case, blocks to their
 * one textual form, the expiry to UTC. 422 validation_failed with a pointer per bad entry. An
 * empty policy (`{}`) is no policy: null.
 */
export function normalizeCredentialPolicy(input: CredentialPolicyInput, now: Date, at = '/policy'): CredentialPolicy | null {
  const errors: FieldError[] = [];
  const each = <T>(field: keyof CredentialPolicyInput, values: string[] | undefined, normalize: (v: string) => T): T[] | undefined => {
    if (!values) return undefined;
    return values.flatMap((value, i) => {
      try {
        return [normalize(value)];
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        errors.push({ pointer: `${at}/${field}/${i}`, code: (e as { code?: string }).code ?? 'invalid_value', detail: e.message });
        return [];
      }
    });
  };
  const zones = each('zones', input.zones, normalizeZone);
  const names = each('names', input.names, normalizeNamePattern);
  const types = each('types', input.types, (t) => {
    const type = t.trim().toUpperCase();
    if (!isRecordType(type)) {
      throw Object.assign(new Error(`"${t}" is not a record type the service writes (${RECORD_TYPES.join(', ')}, or TYPEnnn).`), { code: 'unknown_type' });
    }
    return type;
  });
  const sources = each('source_cidrs', input.source_cidrs, (c) => formatBlock(parseSourceBlock(c)));
  let expiresAt: string | undefined;
  if (input.expires_at !== undefined) {
    const expiry = new Date(input.expires_at);
    if (expiry <= now) errors.push({ pointer: `${at}/expires_at`, code: 'in_the_past', detail: 'The expiry lies in the past.' });
    expiresAt = expiry.toISOString();
  }
  if (errors.length) throw validationFailed(errors);
  const policy: CredentialPolicy = {
    ...(zones ? { zones: uniq(zones) } : {}),
    ...(names ? { names: uniq(names) } : {}),
    ...(types ? { types: uniq(types) } : {}),
    ...(sources ? { source_cidrs: uniq(sources) } : {}),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  };
  return Object.keys(policy).length ? policy : null;
}

/** A policy's blocks, parsed once per policy object (a change set checks every record against one). */
const compiledBlocks = new WeakMap<CredentialPolicy, Block[]>();
function blocksOf(policy: CredentialPolicy): Block[] {
  let blocks = compiledBlocks.get(policy);
  if (!blocks) {
    blocks = (policy.source_cidrs ?? []).map(parseSourceBlock);
    compiledBlocks.set(policy, blocks);
  }
  return blocks;
}

export const policyAllowsZone = (policy: CredentialPolicy | null | undefined, zoneName: string): boolean => !policy?.zones || policy.zones.includes(zoneName);

/**
 * Why `policy` refuses `use`, or null when it allows it. Rules in this order: expired,
 * source_cidrs, zones, names, types (the first that refuses is named).
 */
export function policyRefusal(policy: CredentialPolicy | null | undefined, use: CredentialUse): PolicyRefusal | null {
  if (!policy) return null;
  if (policy.expires_at && use.now >= new Date(policy.expires_at)) {
    return { rule: 'expired', detail: `the credential's policy expired at ${policy.expires_at}` };
  }
  if (policy.source_cidrs) {
    const address = use.source === null ? null : clientAddress(use.source);
    if (!address || !blocksOf(policy).some((b) => blockContains(b, address))) {
      return { rule: 'source_cidrs', detail: `the client address ${use.source ?? '(unknown)'} lies outside ${policy.source_cidrs.join(', ')}` };
    }
  }
  if (use.zone !== undefined && !policyAllowsZone(policy, use.zone)) {
    return { rule: 'zones', detail: `the zone ${use.zone} is not among ${policy.zones!.join(', ')}` };
  }
  if (use.name !== undefined && policy.names) {
    if (use.name === null) return { rule: 'names', detail: `a write to the whole zone ${use.zone} needs a policy without names` };
    const name = use.name;
    if (!policy.names.some((p) => nameMatchesPattern(p, name))) return { rule: 'names', detail: `the name ${name} matches none of ${policy.names.join(', ')}` };
  }
  if (use.type !== undefined && policy.types) {
    if (use.type === null) return { rule: 'types', detail: `a write to the whole zone ${use.zone} needs a policy without types` };
    if (!policy.types.includes(use.type)) return { rule: 'types', detail: `the type ${use.type} is not among ${policy.types.join(', ')}` };
  }
  return null;
}

/** Whether pattern `outer` matches every name pattern `inner` matches. */
function patternCovers(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  if (outer.startsWith('*.')) {
    // *.S covers a name strictly below S, and *.T for T at or below S.
    const suffix = outer.slice(2);
    if (inner.endsWith('.*')) return false;
    const base = inner.startsWith('*.') ? inner.slice(2) : inner;
    return inner.startsWith('*.') ? base === suffix || base.endsWith(`.${suffix}`) : nameMatchesPattern(outer, inner);
  }
  if (outer.endsWith('.*')) {
    // P.* covers a name starting with P and one more label, and Q.* for Q starting with P.
    if (inner.startsWith('*.')) return false;
    const prefix = outer.slice(0, -2);
    const base = inner.endsWith('.*') ? inner.slice(0, -2) : inner;
    return inner.endsWith('.*') ? base === prefix || base.startsWith(`${prefix}.`) : nameMatchesPattern(outer, inner);
  }
  return false;
}

/**
 * The first rule under which `inner` allows more than `outer`, or null when `inner` is within
 * it: a credential with a policy may issue credentials only within its own (no escalation by
 * minting, as with scopes).
 */
export function policyWiderThan(inner: CredentialPolicy | null, outer: CredentialPolicy | null): PolicyRule | null {
  if (!outer) return null;
  const i = inner ?? {};
  if (outer.expires_at && (!i.expires_at || new Date(i.expires_at) > new Date(outer.expires_at))) return 'expired';
  if (outer.source_cidrs) {
    const outerBlocks = blocksOf(outer);
    if (!i.source_cidrs || !blocksOf(i).every((b) => outerBlocks.some((o) => blockWithin(b, o)))) return 'source_cidrs';
  }
  if (outer.zones && !i.zones?.every((z) => outer.zones!.includes(z))) return 'zones';
  if (outer.names && !i.names?.every((n) => outer.names!.some((o) => patternCovers(o, n)))) return 'names';
  if (outer.types && !i.types?.every((t) => outer.types!.includes(t))) return 'types';
  return null;
}
