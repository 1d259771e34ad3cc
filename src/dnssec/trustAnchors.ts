// The trust anchor the chain check starts from (docs/dnssec.md "Checks"): DNSSEC_TRUST_ANCHORS
// (the IANA root KSKs by default in production), or in the lab the DS of the lab root's own KSKs,
// read from the keys the service keeps for the root zone.
import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import { keyRowsOf } from '../db/repositories/dnssecKeys.js';
import { dnskeyRdata, dsRdata } from './keys.js';
import { rdataFromPresentation } from '../domain/zonefile/rdataFromPresentation.js';
import { forEachLogicalRecord } from '../domain/zonefile/tokenize.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';

/** "<tag> <algorithm> <digest type> <hex digest>" → DS RDATA (RFC 4034 §5.1), through the codec. */
export function dsFromPresentation(text: string): Buffer {
  const tokens: Parameters<typeof rdataFromPresentation>[1][] = [];
  forEachLogicalRecord(text, (r) => {
    if (r.tokens.length) tokens.push(r.tokens);
  });
  const parsed = tokens.length === 1 ? rdataFromPresentation('DS', tokens[0]!, '') : null;
  if (!parsed?.ok) throw new RangeError(`"${text}" is not a DS record's data (key tag, algorithm, digest type, hex digest)`);
  return encodeRdata('DS', parsed.value);
}

export function trustAnchorsFor(config: Config, db: Knex): () => Promise<Buffer[]> {
  if (config.dnssec.trustAnchors) {
    const anchors = config.dnssec.trustAnchors.map(dsFromPresentation);
    return async () => anchors;
  }
  return async () => {
    const root = (await db('zones').where('name', '').first('id')) as { id: string } | undefined;
    if (!root) return [];
    const keys = await keyRowsOf(db, root.id);
    return keys
      .filter((k) => k.role === 'ksk' && k.state !== 'retired')
      .map((k) => dsRdata('', dnskeyRdata({ flags: 257, algorithm: k.algorithm as 13 | 15, publicKey: k.public_key })));
  };
}
