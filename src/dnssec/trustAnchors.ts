// The trust anchor the chain check starts from (docs/dnssec.md "Checks"): DNSSEC_TRUST_ANCHORS
// (the IANA root KSKs by default in production), or in the lab the DS of the lab root's own KSKs,
// read from the keys the service keeps for the root zone.
import type { Knex } from 'knex';
import type { Config } from '../config/index.js';
import { keyRowsOf } from '../db/repositories/dnssecKeys.js';
import { dnskeyRdata, dsRdata } from './keys.js';

/** "<tag> <algorithm> <digest type> <hex digest>" → DS RDATA (RFC 4034 §5.1). */
export function dsFromPresentation(text: string): Buffer {
  const m = /^\s*(\d{1,5})\s+(\d{1,3})\s+(\d{1,3})\s+([0-9a-fA-F\s]+)$/.exec(text);
  if (!m) throw new RangeError(`"${text}" is not a DS record's data (tag algorithm digest-type hex)`);
  const digest = Buffer.from(m[4]!.replace(/\s+/g, ''), 'hex');
  const head = Buffer.alloc(4);
  head.writeUInt16BE(Number(m[1]));
  head[2] = Number(m[2]);
  head[3] = Number(m[3]);
  return Buffer.concat([head, digest]);
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
