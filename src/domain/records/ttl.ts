/**
 * TTL bounds for records and the zone default. 60 s lets ACME DNS-01 and failover clients move
 * fast; a week is the most any resolver keeps (RFC 8767 caps stale data similarly).
 */
export const TTL_BOUNDS = { min: 60, max: 604_800 } as const;
export const DEFAULT_ZONE_TTL = 3600;

export const isValidTtl = (ttl: number) => Number.isInteger(ttl) && ttl >= TTL_BOUNDS.min && ttl <= TTL_BOUNDS.max;

/** Records a zone may hold, system records included. */
export const MAX_RECORDS_PER_ZONE = 100_000;
