// The spec's DNSSEC state machine (docs/dnssec.md "States"), as data and one pure function: what
// the worker does next for a zone, given what it saw over DNS. The worker (src/dnssec/dnssecWorker.ts)
// observes and stores; this module only decides, so every row of the spec's table is a unit test.

export const DNSSEC_STATES = [
  'off',
  'signing',
  'keys_published',
  'ds_submitted',
  'awaiting_ds',
  'ds_published',
  'validated',
  'active',
  'ds_removing',
  'unsigning',
] as const;
export type DnssecState = (typeof DNSSEC_STATES)[number];
export type DnssecMode = 'automatic' | 'assisted';
export type DenialMethod = 'nsec3' | 'nsec';

/** States on the way in: enable answers 200 (already under way), disable may start from them. */
export const ENABLING: readonly DnssecState[] = ['signing', 'keys_published', 'ds_submitted', 'awaiting_ds', 'ds_published', 'validated'];
/** States on the way out: enable and disable answer 409 dnssec_transition_in_progress. */
export const DISABLING: readonly DnssecState[] = ['ds_removing', 'unsigning'];

/** The states in which a zone is served unsigned (SQL statements name them too). */
export const UNSIGNED_STATES: readonly DnssecState[] = ['off', 'unsigning'];

/** The zone is served signed in the other states: from the first key until the DS is gone and its TTL over. */
export const isSigned = (state: DnssecState) => !UNSIGNED_STATES.includes(state);

/**
 * CDS/CDNSKEY at the apex (RFC 7344, RFC 8078): the keys while the zone is (becoming) signed, the
 * delete form while the DS is being removed, nothing otherwise.
 */
export function cdsPolicy(state: DnssecState): 'keys' | 'delete' | 'none' {
  if (state === 'ds_removing') return 'delete';
  return isSigned(state) ? 'keys' : 'none';
}

/** What the worker saw for one zone. `null`: not looked at (not needed in this state). */
export interface Observations {
  /** Every authoritative server (ours and the secondaries) serves the zone's DNSKEY set with every key. */
  keysServed: boolean | null;
  /** The DS at the parent: none, some matching a KSK, or only DS that match no key. */
  dsAtParent: 'none' | 'matching' | 'mismatch' | null;
  /** The chain from the trust anchor to the zone's SOA validated. */
  chainValid: boolean | null;
  /** The unsigned version (unsigning) is served by every server. */
  unsignedServed: boolean | null;
}

export interface Situation {
  state: DnssecState;
  mode: DnssecMode;
  /** Seconds since the state was entered. */
  sinceSeconds: number;
  /** The waits (docs/dnssec.md): DNSKEY TTL before the DS goes up, DS TTL before unsigning. */
  dnskeyTtl: number;
  dsTtl: number;
}

/**
 * What the worker must do, besides moving to `to`: put the DS at the parent through the registrar,
 * or delete the keys. (Signing on or off follows the state itself: the build compares.)
 */
export type Action = 'submit_ds' | 'forget_keys';

export interface Step {
  to: DnssecState;
  actions: Action[];
}

/** Which observations the worker needs in `state` (nothing else is asked over DNS). */
export function needs(state: DnssecState): (keyof Observations)[] {
  switch (state) {
    case 'signing':
      return ['keysServed'];
    case 'ds_submitted':
    case 'awaiting_ds':
      return ['dsAtParent'];
    case 'ds_published':
    case 'validated':
    case 'active':
      return ['dsAtParent', 'chainValid'];
    case 'ds_removing':
      return ['dsAtParent'];
    case 'unsigning':
      return ['unsignedServed'];
    default:
      return [];
  }
}

/** The spec's table: the next state, or null to stay. */
export function nextStep(s: Situation, seen: Observations): Step | null {
  switch (s.state) {
    case 'off':
      return null;
    case 'signing':
      return seen.keysServed ? { to: 'keys_published', actions: [] } : null;
    case 'keys_published':
      // RFC 6781 §4.1.2: the DS goes up only once every resolver can have the DNSKEY set.
      if (s.sinceSeconds < s.dnskeyTtl) return null;
      return s.mode === 'automatic' ? { to: 'ds_submitted', actions: ['submit_ds'] } : { to: 'awaiting_ds', actions: [] };
    case 'ds_submitted':
    case 'awaiting_ds':
      return seen.dsAtParent === 'matching' ? { to: 'ds_published', actions: [] } : null;
    case 'ds_published':
      return seen.chainValid ? { to: 'validated', actions: [] } : null;
    case 'validated':
      return { to: 'active', actions: [] };
    case 'active':
      return null;
    case 'ds_removing':
      // The DS must be gone at the parent and resolvers' copies expired before the zone goes unsigned.
      return seen.dsAtParent === 'none' && s.sinceSeconds >= s.dsTtl ? { to: 'unsigning', actions: [] } : null;
    case 'unsigning':
      return seen.unsignedServed ? { to: 'off', actions: ['forget_keys'] } : null;
  }
}

/**
 * The `next_action` hint of the DNSSEC object (docs/dnssec.md): what the customer must do, or
 * `wait` while the service works, `none` when nothing is to be done.
 */
export type NextAction = 'none' | 'wait' | 'add_ds_at_registrar' | 'remove_ds_at_registrar' | 'fix_ds_at_registrar' | 'replace_ds_at_registrar';

/** Phases of a KSK rollover on request (the worker's rollKsk): the DS is replaced during the first two. */
export type KskRolloverPhase = 'published' | 'ds_submitted' | 'ds_replaced';

export function nextAction(
  state: DnssecState,
  mode: DnssecMode | null,
  dsAtParent: Observations['dsAtParent'],
  kskRollover: KskRolloverPhase | null = null,
): NextAction {
  if (mode === 'assisted' && (kskRollover === 'published' || kskRollover === 'ds_submitted')) return 'replace_ds_at_registrar';
  if (dsAtParent === 'mismatch' && isSigned(state) && state !== 'ds_removing') return mode === 'assisted' ? 'fix_ds_at_registrar' : 'wait';
  if (state === 'awaiting_ds') return 'add_ds_at_registrar';
  if (state === 'ds_removing' && mode === 'assisted' && dsAtParent !== 'none') return 'remove_ds_at_registrar';
  if (state === 'off' || state === 'active') return 'none';
  return 'wait';
}
