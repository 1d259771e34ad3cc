// TSIG keys of tenants (docs/credentials.md): their algorithms, names and secrets. The algorithms
// are the codec's (nameserver/wire/tsig.ts: the six HMACs of RFC 8945 §6 as BIND, Knot and the
// ACME clients spell them; hmac-md5 is hmac-md5.sig-alg.reg.int on the wire): one list, so the API
// never offers an algorithm the nameserver cannot verify.
import { randomBytes } from 'node:crypto';
import { DEFAULT_TSIG_ALGORITHM, fullMacOctets, TSIG_ALGORITHMS, type TsigAlgorithm } from '../../nameserver/wire/tsig.js';
import { NameError, toAsciiName } from './names.js';

export { DEFAULT_TSIG_ALGORITHM, TSIG_ALGORITHMS, type TsigAlgorithm };

/**
 * Secret length per algorithm: the hash's output length. RFC 8945 §6: "the key SHOULD be at
 * least as long as the hash output"; BIND's tsig-keygen makes keys of this length too.
 */
export const TSIG_SECRET_OCTETS = Object.fromEntries(TSIG_ALGORITHMS.map((a) => [a, fullMacOctets(a)])) as Record<TsigAlgorithm, number>;

/** Keys a tenant may hold (409 quota_exceeded past it): ample for one per host or client. */
export const MAX_TSIG_KEYS_PER_TENANT = 100;

export const generateTsigSecret = (algorithm: TsigAlgorithm): Buffer => randomBytes(TSIG_SECRET_OCTETS[algorithm]);

/** A key's DNS name as stored: lower case, A-labels, no trailing dot, no wildcard. Throws NameError. */
export function normalizeTsigKeyName(input: string): string {
  const name = toAsciiName(input);
  if (name.includes('*')) throw new NameError('invalid_wildcard', 'A key name cannot contain a wildcard.');
  return name;
}
