// DS records between the presentation form the lab's endpoints take and the registry stores
// ("12345 13 2 <hex>", RFC 4034 §5.3) and wire RDATA, through the codec (zone-file tokenizer and
// the DS codec): no second parser.
import { DomainError } from '../domain/errors.js';
import { rdataFromPresentation } from '../domain/zonefile/rdataFromPresentation.js';
import { forEachLogicalRecord } from '../domain/zonefile/tokenize.js';
import { encodeRdata, presentData, rdataToData } from '../../nameserver/wire/rdata.js';

/** DS RDATA in presentation form ("12345 13 2 <hex>") → wire, through the codec; 422 located at /ds/<i>. */
export function parseDsPresentation(texts: string[]): Buffer[] {
  return texts.map((text, i) => {
    const invalid = (detail: string) => new DomainError('validation_failed', {}, [{ pointer: `/ds/${i}`, code: 'invalid_rdata', detail }]);
    const records: { tokens: Parameters<typeof rdataFromPresentation>[1] }[] = [];
    forEachLogicalRecord(text, (r) => {
      if (r.errors.length) throw invalid(r.errors[0]!.detail);
      if (r.tokens.length) records.push(r);
    });
    if (records.length !== 1) throw invalid('One DS record: key tag, algorithm, digest type and digest in hex.');
    const parsed = rdataFromPresentation('DS', records[0]!.tokens, '');
    if (!parsed.ok) throw invalid(parsed.detail);
    try {
      return encodeRdata('DS', parsed.value);
    } catch (e) {
      throw invalid((e as Error).message);
    }
  });
}

/** DS wire RDATA → the presentation form the registry stores. */
export function dsPresentation(ds: Buffer[]): string[] {
  return ds.map((rdata) => {
    const data = rdataToData('DS', rdata);
    if (!data) throw new RangeError('malformed DS RDATA');
    return presentData('DS', data);
  });
}

