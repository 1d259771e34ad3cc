// The trust anchor the chain check starts from (docs/dnssec.md "Checks"): DNSSEC_TRUST_ANCHORS
// (the IANA root KSKs by default in production), or in the lab the DS of the lab root's own KSKs,
// read from the keys the service keeps for the root zone.
import type { Config } from '../config/index.js';
import type { Pool } from '../db/context.js';
import { zoneKeys } from '../db/repositories/dnssecKeys.js';
import { zoneIdNamed } from '../db/repositories/zoneStore.js';
import { dsOfKey } from '../../nameserver/dnssec/keys.js';
import { rdataFromText } from '../domain/zonefile/rdataFromPresentation.js';

/** "<tag> <algorithm> <digest type> <hex digest>" → DS RDATA (RFC 4034 §5.1), through the codec. */
function dsFromPresentation(text: string): Buffer {
  const parsed = rdataFromText('DS', text);
  if (!parsed.ok) throw new RangeError(`"${text}" is not a DS record's data: ${parsed.detail}`);
  return parsed.value;
}

export function trustAnchorsFor(config: Config, db: Pool): () => Promise<Buffer[]> {
  if (config.dnssec.trustAnchors) {
    const anchors = config.dnssec.trustAnchors.map(dsFromPresentation);
    return async () => anchors;
  }
  return async () => {
    const root = await zoneIdNamed(db, '');
    if (!root) return [];
    return (await zoneKeys(db, root)).filter((k) => k.role === 'ksk' && k.state !== 'retired').map((k) => dsOfKey('', k));
  };
}
