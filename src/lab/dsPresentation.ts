// DS records between the presentation form the lab's endpoints take and the registry stores
// ("12345 13 2 <hex>", RFC 4034 §5.3) and wire RDATA, through the codec (zone-file tokenizer and
// the DS codec): no second parser.
import { DomainError } from '../domain/errors.js';
import { rdataFromText } from '../domain/zonefile/rdataFromPresentation.js';
import { presentRdata } from '../../nameserver/wire/rdata.js';

/** DS RDATA in presentation form ("12345 13 2 <hex>") → wire, through the codec; 422 located at /ds/<i>. */
export function parseDsPresentation(texts: string[]): Buffer[] {
  return texts.map((text, i) => {
    const parsed = rdataFromText('DS', text);
    if (!parsed.ok) throw new DomainError('validation_failed', {}, [{ pointer: `/ds/${i}`, code: 'invalid_rdata', detail: parsed.detail }]);
    return parsed.value;
  });
}

/** DS wire RDATA → the presentation form the registry stores. */
export const dsPresentation = (ds: Buffer[]): string[] => ds.map((rdata) => presentRdata('DS', rdata));
