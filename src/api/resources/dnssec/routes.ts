import { z } from 'zod';
import { presentRdata } from '../../../../nameserver/wire/rdata.js';
import { dnskeyRdata } from '../../../../nameserver/dnssec/keys.js';
import {
  checkDnssec,
  disableDnssec,
  type DnssecCheckOutcome,
  type DnssecView,
  enableDnssec,
  getDnssec,
  requestRollover,
  runDnssecCheck,
} from '../../../services/dnssec.js';
import { DomainError } from '../../../domain/errors.js';
import { missingScopes } from '../../../domain/scopes.js';
import { hasFeature } from '../../../domain/tenancy.js';
import type { Actor } from '../../../services/actor.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { iso, timestamp } from '../common.js';
import { zoneParam } from '../zones/schemas.js';

const TAG = 'DNSSEC';

const keySchema = z.object({
  id: z.string(),
  role: z.enum(['ksk', 'zsk']),
  algorithm: z.number().int().describe('13 ECDSAP256SHA256, 15 ED25519'),
  flags: z.number().int().describe('257 KSK (SEP), 256 ZSK'),
  key_tag: z.number().int(),
  state: z
    .enum(['published', 'active', 'retired'])
    .describe('published: in the DNSKEY set, not signing yet; active: signing; retired: still published, no longer signing'),
  dnskey: z.string().describe('The DNSKEY RDATA in presentation form: flags protocol algorithm public-key'),
  created_at: timestamp,
});

export const dnssecSchema = z.object({
  zone: z.string(),
  state: z.enum(['off', 'signing', 'keys_published', 'ds_submitted', 'awaiting_ds', 'ds_published', 'validated', 'active', 'ds_removing', 'unsigning']),
  mode: z.enum(['automatic', 'assisted']).nullable().describe('automatic: the service submits the DS through the registrar; assisted: the customer adds it'),
  denial: z.enum(['nsec3', 'nsec']).describe('nsec3: RFC 9276 parameters (1 0 0 -); nsec on request'),
  state_changed_at: timestamp.nullable(),
  keys: z.array(keySchema).describe('The DNSKEYs published at the service’s nameservers'),
  ds: z.array(z.string()).describe('DS records to place at the parent (SHA-256), presentation form: key-tag algorithm 2 digest'),
  ds_at_parent: z
    .object({ state: z.enum(['none', 'matching', 'mismatch']), records: z.array(z.string()) })
    .nullable()
    .describe('What the last check saw at the parent: no DS, a DS matching a key, or only DS matching no key (shown at once as a failing validation)'),
  validation: z
    .object({ result: z.enum(['valid', 'invalid', 'unchecked']), reason: z.string().nullable(), checked_at: timestamp.nullable() })
    .describe('The service’s own chain validation from the trust anchor to the zone’s SOA'),
  next_action: z
    .enum(['none', 'wait', 'add_ds_at_registrar', 'remove_ds_at_registrar', 'fix_ds_at_registrar', 'replace_ds_at_registrar'])
    .describe(
      'none: nothing to do; wait: the service is working; add_/remove_/fix_/replace_ds_at_registrar: the customer’s step at its registrar (assisted mode; replace during a KSK rollover)',
    ),
  checked_at: timestamp.nullable(),
});

export function presentDnssec(v: DnssecView): z.infer<typeof dnssecSchema> {
  return {
    zone: v.zone.name,
    state: v.state,
    mode: v.mode,
    denial: v.denial,
    state_changed_at: iso(v.stateChangedAt),
    keys: v.keys.map((k) => ({
      id: k.id,
      role: k.role,
      algorithm: k.algorithm,
      flags: k.flags,
      key_tag: k.keyTag,
      state: k.state,
      dnskey: presentRdata('DNSKEY', dnskeyRdata(k)),
      created_at: k.createdAt.toISOString(),
    })),
    ds: v.ds.map((d) => presentRdata('DS', d)),
    ds_at_parent: v.status.ds_at_parent ?? null,
    validation: { result: v.validation.result, reason: v.validation.reason, checked_at: v.validation.checkedAt },
    next_action: v.nextAction,
    checked_at: v.status.checked_at ?? null,
  };
}

const params = z.strictObject({ zone: zoneParam });

/**
 * A request that switches DNSSEC on as part of another write (POST /zones with `dnssec: true`,
 * an address space's `dnssec`) needs what the DNSSEC endpoints need: the scope and the feature.
 */
export function assertMayWriteDnssec(actor: Actor): void {
  const missing = missingScopes(actor.token.scopes, ['dnssec:write']);
  if (missing.length) throw new DomainError('insufficient_scope', { scopes: missing.join(', ') });
  if (!hasFeature(actor.actingChain, 'dnssec')) throw new DomainError('feature_disabled', { feature: 'dnssec' });
}
const DNSSEC_ERRORS = ['not_implemented', 'feature_disabled', 'dnssec_transition_in_progress'] as const;

export const dnssecRoutes = [
  defineRoute({
    method: 'get',
    path: '/zones/{zone}/dnssec',
    operationId: 'getDnssec',
    summary: 'DNSSEC status of a zone',
    description: 'State, mode, keys, the DS to place at the parent, what the parent publishes, the last validation and the next step (docs/dnssec.md).',
    tag: TAG,
    scopes: ['dnssec:read'],
    feature: 'dnssec',
    params,
    responses: { 200: { description: 'The DNSSEC object', schema: dnssecSchema } },
    handler: async (input) => ({
      status: 200,
      body: presentDnssec(await getDnssec(input.context, input.services.config, input.params.zone)),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/dnssec/enable',
    operationId: 'enableDnssec',
    summary: 'Enable DNSSEC',
    description:
      'Makes a KSK and a ZSK (algorithm DNSSEC_ALGORITHM), signs the zone with its next version and walks the state machine to `active`. `mode` defaults to `automatic` when the domain is registered through the provider, else `assisted`. `automatic` where no DS can be submitted: 422 `validation_failed` (`ds_not_submittable`); NS at the parent pointing elsewhere: 409 `dnssec_not_delegated`; while disabling: 409 `dnssec_transition_in_progress`; already enabling or active: 200 with the current object; DNSSEC_SIGNING=off: 501.',
    tag: TAG,
    scopes: ['dnssec:write'],
    feature: 'dnssec',
    params,
    body: z
      .strictObject({
        mode: z.enum(['automatic', 'assisted']).optional(),
        denial: z.enum(['nsec3', 'nsec']).optional().describe('Default nsec3 (RFC 9276: SHA-1, no extra iterations, no salt, no opt-out)'),
      })
      .default({}),
    errors: [...DNSSEC_ERRORS, 'dnssec_not_delegated', 'conflict'],
    responses: {
      200: { description: 'Already enabling or active: the current object', schema: dnssecSchema },
      202: { description: 'Enabling started', schema: dnssecSchema },
    },
    handler: async (input) => {
      const { started, view } = await enableDnssec(writeContext(input), input.services.dnssec, input.params.zone, input.body);
      return { status: started ? 202 : 200, body: presentDnssec(view) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/dnssec/disable',
    operationId: 'disableDnssec',
    summary: 'Disable DNSSEC',
    description:
      'The DS leaves the parent first (automatic: the service withdraws it; assisted: `next_action` is `remove_ds_at_registrar`), the CDS/CDNSKEY delete form is published (RFC 8078), the DS TTL is waited out, then the zone is served unsigned and its keys are deleted. Before any DS could be up (signing, keys_published, awaiting_ds in automatic mode) the zone goes straight to `unsigning`. Off already: 200; while disabling: 409 `dnssec_transition_in_progress`.',
    tag: TAG,
    scopes: ['dnssec:write'],
    feature: 'dnssec',
    params,
    errors: [...DNSSEC_ERRORS],
    responses: {
      200: { description: 'DNSSEC is off: the current object', schema: dnssecSchema },
      202: { description: 'Disabling started', schema: dnssecSchema },
    },
    handler: async (input) => {
      const { started, view } = await disableDnssec(writeContext(input), input.services.dnssec, input.params.zone);
      return { status: started ? 202 : 200, body: presentDnssec(view) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/dnssec/check',
    operationId: 'checkDnssec',
    summary: 'Check the chain now',
    description:
      'Asks the real DNS at once: the DNSKEY served by every nameserver, the DS at the parent, the chain from the trust anchor; stores what it saw and takes the state machine’s next step where one is due. One check per zone per minute (429 `rate_limited` with `Retry-After`).',
    tag: TAG,
    scopes: ['dnssec:write'],
    feature: 'dnssec',
    params,
    errors: [...DNSSEC_ERRORS],
    responses: { 200: { description: 'The DNSSEC object after the check', schema: dnssecSchema } },
    // The check runs before the request's transaction (services/dnssec.ts runDnssecCheck).
    prepare: (input) => runDnssecCheck(input.context, input.services.dnssec, input.services.rateLimiter, input.params.zone, input.services.clock.now()),
    handler: async (input) => ({
      status: 200,
      body: presentDnssec(await checkDnssec(writeContext(input), input.services.dnssec, input.params.zone, input.prepared as DnssecCheckOutcome | null)),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/dnssec/rollover',
    operationId: 'requestDnssecRollover',
    summary: 'Roll a key over now (provider staff)',
    description:
      'For platform tokens (403 otherwise), on a zone whose DNSSEC is `active` (409 otherwise, or while that key is already rolling). `zsk`: the automatic pre-publish rollover starts now. `ksk`: a double-KSK rollover — the new KSK signs the DNSKEY set beside the old one and is published with its CDS; the DS at the parent is replaced (automatic mode: by the service; assisted: `next_action` `replace_ds_at_registrar`) and the old KSK removed once the DS TTL has passed (docs/dnssec.md "Key rollover").',
    tag: TAG,
    scopes: ['dnssec:write'],
    feature: 'dnssec',
    params,
    body: z.strictObject({ key: z.enum(['ksk', 'zsk']) }),
    errors: ['not_implemented', 'feature_disabled', 'forbidden', 'conflict'],
    responses: { 202: { description: 'The rollover started: the DNSSEC object with the new key', schema: dnssecSchema } },
    handler: async (input) => ({
      status: 202,
      body: presentDnssec(await requestRollover(writeContext(input), input.services.dnssec, input.params.zone, input.body.key)),
    }),
  }),
];
