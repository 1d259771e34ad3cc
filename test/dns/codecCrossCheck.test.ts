// Our codecs against DNS software nobody here wrote: a seeded sample of random data the API
// accepts, of every type it writes and of an RFC 3597 opaque type, is written as one zone file in
// our presentation; BIND (named-compilezone) and ldns (ldns-read-zone) must read every record and
// print it back; our zone-file reader then reads what they printed, and every record must come
// back at its owner with the same type and the same wire RDATA as ours. Wire forms are compared,
// not text: the tools print in their own style (BIND names CERT types, splits base64, …), but a
// codec that writes other octets than BIND or ldns reads from the same text fails here. BIND's
// text is then compared with ours too: the same but for the exceptions asWePrintIt lists.
import fc from 'fast-check';
import { describe, expect, it, type TestContext } from 'vitest';
import type { ZoneRecord } from '../../nameserver/types.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../nameserver/wire/rdataPresentation.js';
import { typeCode, typeName } from '../../nameserver/wire/rrTypes.js';
import { certAlgorithmCode, certTypeCode } from '../../nameserver/wire/types/cert.js';
import { RECORD_TYPES } from '../../src/domain/records/types.js';
import { parseZoneFile } from '../../src/domain/zonefile/parseZoneFile.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';
import { ACCEPTED_DATA, OPAQUE_DATA } from '../helpers/recordArbitraries.js';
import { record, zoneFileText } from '../helpers/zoneText.js';

const ZONE = 'xcheck.test';
const SEED = 20261128;
const PER_TYPE = 30;
const OPAQUE = 'TYPE65400';

/** `PER_TYPE` records of each type, at r<i>.<type>.xcheck.test: no owner is above another. */
const SAMPLE: ZoneRecord[] = [...RECORD_TYPES, OPAQUE].flatMap((type) =>
  fc
    .sample(type === OPAQUE ? OPAQUE_DATA : ACCEPTED_DATA[type]!, { seed: SEED, numRuns: PER_TYPE })
    .map((data, i) => record(`r${i}.${type.toLowerCase()}.${ZONE}`, type as Parameters<typeof record>[1], data)),
);

// BIND wants an address for the apex nameserver even with -i none.
const GLUE = record(`ns1.${ZONE}`, 'A', { address: '192.0.2.53' });

const ZONE_TEXT = zoneFileText([
  record(ZONE, 'SOA', { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 }),
  record(ZONE, 'NS', { nameserver: `ns1.${ZONE}` }),
  GLUE,
  ...SAMPLE,
]);

/** Owner, type and wire RDATA of each record, sorted: a multiset as comparable lines. */
const wireLines = (records: readonly { owner: string; type: string; rdata: Buffer }[]) =>
  records.map((r) => `${r.owner} ${r.type} ${r.rdata.toString('hex')}`).sort();

const OURS = wireLines([GLUE, ...SAMPLE].map((r) => ({ owner: r.name, type: typeName(r.type), rdata: r.rdata })));

/** A tool's printed zone read by our importer's reader; apex SOA and NS aside, every line must be a record it reads. */
function readBack(printed: string, tool: string): string[] {
  const parsed = parseZoneFile(printed, ZONE);
  expect(parsed.errors, `${tool}'s output as our reader sees it`).toEqual([]);
  expect(parsed.skipped.map((s) => `${s.owner} ${s.type}`).sort()).toEqual([`${ZONE} NS`, `${ZONE} SOA`]);
  return wireLines(parsed.entries.map((e) => ({ owner: e.owner, type: e.type, rdata: encodeRdata(e.type, e.data) })));
}

let bindOutput: string | undefined;

/** The zone as named-compilezone prints it (run once); it must accept every record. */
function bindPrinted(ctx: TestContext): string {
  if (bindOutput !== undefined) return bindOutput;
  const compile = requireTool('named-compilezone', ctx);
  const file = tempFile(`${ZONE}.zone`, ZONE_TEXT);
  try {
    // -i none: no zone integrity checks (no glue or delegation is under test). -k ignore: BIND's
    // check-names is its host-name policy (RFC 952 letters, digits, hyphens) for MX, NS, SRV and
    // SVCB targets, not the RDATA format; the API allows any label there (RFC 2181 §11).
    const bind = runTool(compile, ['-i', 'none', '-k', 'ignore', '-s', 'full', '-o', '-', ZONE, file.file]);
    expect(bind.status, `named-compilezone refused the zone:\n${bind.output}`).toBe(0);
    bindOutput = bind.stdout;
    return bindOutput;
  } finally {
    file.remove();
  }
}

/** Hex fields after this many leading fields: BIND splits them in groups of 56 digits, we print one run. */
const HEX_AFTER: Record<string, number> = { DS: 3, SSHFP: 2, TLSA: 3, SMIMEA: 3 };

/** BIND's RDATA tokens in our style: hex in one run; CERT type and algorithm as numbers (RFC 4398 §2.2: either is valid). */
function asWePrintIt(type: string, tokens: string[]): string[] {
  const fixed = HEX_AFTER[type];
  if (fixed !== undefined) return [...tokens.slice(0, fixed), tokens.slice(fixed).join('')];
  if (type === 'CERT') {
    const [certType, keyTag, algorithm, ...rest] = tokens;
    return [String(certTypeCode(certType)), keyTag!, String(certAlgorithmCode(algorithm)), ...rest];
  }
  return tokens;
}

describe(`BIND and ldns read ${PER_TYPE} random records of every type as our codecs write them`, () => {
  it('the sample has every type the API writes and an opaque one', () => {
    expect(new Set(SAMPLE.map((r) => typeName(r.type)))).toEqual(new Set([...RECORD_TYPES, OPAQUE]));
    expect(SAMPLE).toHaveLength((RECORD_TYPES.length + 1) * PER_TYPE);
  });

  it('named-compilezone accepts every record and reads the same wire RDATA', (ctx) => {
    expect(readBack(bindPrinted(ctx), 'named-compilezone')).toEqual(OURS);
  });

  it('named-compilezone prints every record as we do, but for its hex groups and CERT mnemonics', (ctx) => {
    const printed = bindPrinted(ctx);
    const lines = printed.split('\n');
    const entries = parseZoneFile(printed, ZONE).entries;
    expect(entries).toHaveLength(OURS.length);
    for (const e of entries) {
      // -s full: one record a line, "owner ttl class type rdata".
      const bind = lines[e.line - 1]!.trim().split(/\s+/).slice(4);
      // Our presentation of the wire form, as our zone files and dig print it.
      const ours = decodeRdata(typeCode(e.type)!, encodeRdata(e.type, e.data)).split(' ');
      expect(`${e.owner} ${e.type} ${asWePrintIt(e.type, bind).join(' ')}`).toBe(`${e.owner} ${e.type} ${ours.join(' ')}`);
    }
  });

  it('ldns-read-zone reads the same wire RDATA', (ctx) => {
    const read = requireTool('ldns-read-zone', ctx);
    const file = tempFile(`${ZONE}.zone`, ZONE_TEXT);
    try {
      // SVCB and HTTPS printed as RFC 3597 generic RDATA: ldns 1.8.3 prints "(" and ")" in SvcParam
      // values unescaped, which no master-file reader takes back (RFC 1035 §5.1: they group lines).
      const ldns = runTool(read, ['-u', 'SVCB', '-u', 'HTTPS', file.file]);
      expect(ldns.status, `ldns-read-zone refused the zone:\n${ldns.output}`).toBe(0);
      expect(readBack(ldns.stdout, 'ldns-read-zone')).toEqual(OURS);
    } finally {
      file.remove();
    }
  });
});
