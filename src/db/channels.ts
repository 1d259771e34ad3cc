// PostgreSQL NOTIFY channels: the database is where writers and workers meet, so their names
// live in the db layer that both import (services write, publication workers LISTEN).

/** A zone has a new change set (or a retried one) to publish; the payload is the zone id. */
export const ZONE_CHANNEL = 'zone_changed';

/**
 * A tenant's TSIG key was created, rotated, deleted or its policy changed; the payload is the
 * key's id. Nameserver processes reload their tenants' keys (loadTenantTsigKeys) when it arrives.
 */
export const TSIG_KEYS_CHANNEL = 'tsig_keys_changed';

/**
 * Change sets of a zone reached an end of their publication: `live` (the verifier) or `failed`
 * (the build). The payload is the zone id. Sent in the statement or transaction that moves them,
 * so it is delivered on commit; API processes waiting for `Prefer: wait` answers LISTEN
 * (src/services/liveWait.ts).
 */
export const CHANGESETS_SETTLED_CHANNEL = 'changesets_settled';

/**
 * A secondary set was created, changed (its secondaries, its key) or deleted; the payload is the
 * set's id. Nameserver processes read the catalog zones' access lists again when it arrives.
 */
export const SECONDARY_SETS_CHANNEL = 'secondary_sets_changed';
