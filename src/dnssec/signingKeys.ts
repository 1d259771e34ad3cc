// The keys the build's sign step signs with: active keys sign (KSKs the DNSKEY set, ZSKs the rest),
// the others are only published (a pre-published ZSK, a retiring key). Private halves are
// decrypted here, in memory, for the one build.
import type { KeyRow } from '../db/repositories/dnssecKeys.js';
import { unsealSecret } from '../db/sealedSecrets.js';
import { type DnssecAlgorithm, dnskeyRdata } from '../../nameserver/dnssec/keys.js';
import type { SigningKeys } from '../../nameserver/dnssec/signZone.js';

export function signingKeys(rows: readonly KeyRow[], kek: Buffer): SigningKeys {
  const keys: SigningKeys = { ksks: [], zsks: [], publishedOnly: [] };
  for (const r of rows) {
    const algorithm = r.algorithm as DnssecAlgorithm;
    const flags = r.flags as 256 | 257;
    if (r.state !== 'active') {
      keys.publishedOnly!.push(dnskeyRdata({ flags, algorithm, publicKey: r.public_key }));
      continue;
    }
    const key = { role: r.role, algorithm, flags, publicKey: r.public_key, privateKey: unsealSecret(r.private_key, kek), keyTag: r.key_tag };
    (r.role === 'ksk' ? keys.ksks : keys.zsks).push(key);
  }
  return keys;
}

/**
 * What a version was signed with, stored with it (zone_versions.signing): when it differs from
 * what the zone asks for now — keys in or out, signing on or off, CDS policy — the worker builds
 * the zone again, signed whole. Null: unsigned.
 *
 * The first word names the layout of a signed version: a change of what the signer stores (as when
 * the key sets became rendered records, src/dnssec/keySetSource.ts) takes a new word, so that
 * every signed zone is signed whole once rather than by its names over a version laid out otherwise.
 */
export function signingFingerprint(state: { signed: boolean; denial: string; cds: string }, keys: { id: string; state: string }[]): string | null {
  if (!state.signed) return null;
  return [SIGNED_LAYOUT, state.denial, state.cds, ...keys.map((k) => `${k.id}:${k.state}`).sort()].join(' ');
}
const SIGNED_LAYOUT = 'keysets-rendered';
