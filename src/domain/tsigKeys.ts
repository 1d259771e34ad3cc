// TSIG keys of tenants (docs/credentials.md): their algorithms, names and secrets. The names are
// the six HMACs of RFC 8945 §6 as BIND, Knot and the ACME clients spell them (the nameserver's
// codec maps hmac-md5 to hmac-md5.sig-alg.reg.int on the wire).
import { randomBytes } from 'node:crypto';
import { NameError, toAsciiName } from './names.js';

export const TSIG_ALGORITHMS = ['hmac-md5', 'hmac-sha1', 'hmac-sha224', 'hmac-sha256', 'hmac-sha384', 'hmac-sha512'] as const;
export type TsigAlgorithm = (typeof TSIG_ALGORITHMS)[number];
export const DEFAULT_TSIG_ALGORITHM: TsigAlgorithm = 'hmac-sha256';

/**
 * Secret length per algorithm: the hash's output length. RFC 8945 §6: "the key SHOULD be at
 * least as long as the hash output"; BIND's tsig-keygen makes keys of this length too.
 */
export const TSIG_SECRET_OCTETS: Record<TsigAlgorithm, number> = {
  'hmac-md5': 16,
  'hmac-sha1': 20,
  'hmac-sha224': 28,
  'hmac-sha256': 32,
  'hmac-sha384': 48,
  'hmac-sha512': 64,
};

/** Keys a tenant may hold (409 quota_exceeded past it): ample for one per host or client. */
export const MAX_TSIG_KEYS_PER_TENANT = 100;

export const generateTsigSecret = (algorithm: TsigAlgorithm): Buffer => randomBytes(TSIG_SECRET_OCTETS[algorithm]);

/** A key's DNS name as stored: lower case, A-labels, no trailing dot, no wildcard. Throws NameError. */
export function normalizeTsigKeyName(input: string): string {
  const name = toAsciiName(input);
  if (name.includes('*')) throw new NameError('invalid_wildcard', 'A key name cannot contain a wildcard.');
  return name;
}
