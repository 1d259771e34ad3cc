// One codec per record type (nameserver/wire/types/): for every type with a codec, random data
// goes data → wire → presentation → data → wire and comes back to the same octets and the same
// presentation; wire → data → wire is the identity; and for the types the API writes, the API's
// presentation (what it shows as `content`) reads back through the zone-file reader to the same
// wire form. The presentation reader is the zone-file importer's (src/domain/zonefile), so the
// three forms cannot drift apart.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TYPE } from '../../../nameserver/types.js';
import { encodeRdata, presentData, rdataToData } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { RECORD_TYPES } from '../../../src/domain/records/types.js';
import { CODEC_TYPES } from '../../../nameserver/wire/types/index.js';
import { rdataFromPresentation } from '../../../src/domain/zonefile/rdataFromPresentation.js';
import { forEachLogicalRecord, type Token } from '../../../src/domain/zonefile/tokenize.js';
import { DATA } from '../../helpers/recordArbitraries.js';

/** The RDATA tokens of a presentation, as the zone-file reader sees them after the type. */
function tokensOf(presentation: string): Token[] {
  let tokens: Token[] = [];
  forEachLogicalRecord(`x ${presentation}`, (record) => {
    expect(record.errors).toEqual([]);
    tokens = record.tokens.slice(1);
  });
  return tokens;
}

/** presentation → data (the zone-file reader, root origin) → wire. */
function wireOfPresentation(type: string, presentation: string): Buffer {
  const data = rdataFromPresentation(type, tokensOf(presentation), '');
  if (!data.ok) throw new Error(`${type} "${presentation}": ${data.code} ${data.detail}`);
  return encodeRdata(type, data.value);
}

describe('every codec round-trips presentation → data → wire → presentation', () => {
  it('covers every type in the codec table', () => {
    expect(Object.keys(DATA).sort()).toEqual([...CODEC_TYPES].sort());
  });

  it.each(CODEC_TYPES.map((t) => [t]))('%s', (type) => {
    const code = TYPE[type as keyof typeof TYPE];
    fc.assert(
      fc.property(DATA[type]!, (data) => {
        const wire = encodeRdata(type, data);
        // wire → data → wire
        const back = rdataToData(type, wire);
        expect(back).not.toBeNull();
        expect(encodeRdata(type, back!).equals(wire)).toBe(true);
        // wire → presentation (dig's form) → data → wire → presentation
        const presentation = decodeRdata(code, wire);
        expect(presentation.startsWith('\\#')).toBe(false);
        const again = wireOfPresentation(type, presentation);
        expect(again.toString('hex')).toBe(wire.toString('hex'));
        expect(decodeRdata(code, again)).toBe(presentation);
      }),
      { numRuns: 150 },
    );
  });

  it.each(RECORD_TYPES.map((t) => [t]))('%s: the API presentation reads back to the same wire form', (type) => {
    fc.assert(
      fc.property(DATA[type]!, (data) => {
        const wire = encodeRdata(type, data);
        const content = presentData(type, data);
        expect(wireOfPresentation(type, content).equals(wire)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
