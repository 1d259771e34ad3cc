// SSHFP, URI, HINFO, RP, OPENPGPKEY, SMIMEA, NAPTR, CERT, LOC and an RFC 3597 type served by the
// nameserver and read back by dig and kdig: each prints the RDATA the API shows as `content`
// (blank space joined, hex case aside: dig and kdig print hex upper case, the API lower case).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import type { ZoneRecord } from '../../nameserver/types.js';
import { encodeRdata, presentData } from '../../nameserver/wire/rdata.js';
import { typeCode } from '../../nameserver/wire/rrTypes.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import { ZoneStore } from '../../nameserver/zone/store.js';
import { digQuery } from '../helpers/digClient.js';
import { requireTool } from '../helpers/dnsTools.js';
import { soaData, startTestServer } from '../helpers/fixtureZones.js';

const ZONE = 'types.example';
const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

// [type, data]; each served at r<i>.types.example
const RECORDS: [string, Record<string, unknown>][] = [
  ['SSHFP', { algorithm: 4, fingerprint_type: 2, fingerprint: sha256 }],
  ['URI', { priority: 10, weight: 1, target: 'https://www.example.com/"q"' }],
  ['HINFO', { cpu: 'RFC8482', os: '' }],
  ['RP', { mailbox: 'hostmaster.types.example', text: '.' }],
  ['OPENPGPKEY', { public_key: 'mQENBFVHm5sBCADrZb/pRsFeJ8A8' }],
  ['SMIMEA', { usage: 3, selector: 1, matching_type: 1, certificate_data: sha256 }],
  ['NAPTR', { order: 100, preference: 10, flags: 'u', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' }],
  ['CERT', { cert_type: 1, key_tag: 12345, algorithm: 8, certificate: 'MIIBIjAN' }],
  ['LOC', { latitude: 42.365, longitude: -71.105, altitude: -24, size: 30, horizontal_precision: 10000, vertical_precision: 10 }],
  ['TYPE65534', { rdata: '0a0b0c' }],
];

/** What each tool prints differently from the API, by design of that tool (checked, not hidden). */
function asPrintedBy(tool: 'dig' | 'kdig', type: string, content: string): string {
  // dig (BIND) names CERT types and algorithms by mnemonic (RFC 4398 §2.2); kdig and the API print numbers.
  if (tool === 'dig' && type === 'CERT') return content.replace(/^1 12345 8 /, 'PKIX 12345 RSASHA256 ');
  // kdig drops the zeros of LOC's fractions ("54 N", "-24m"); the API prints them as BIND does ("54.000 N", "-24.00m").
  if (tool === 'kdig' && type === 'LOC') return content.replace(/(\.\d*?)0+(?=[\sm]|$)/g, '$1').replace(/\.(?=[\sm]|$)/g, '');
  return content;
}

/** Blank space as one space, and hex runs compared without case (both tools print hex upper case, split in groups). */
const comparable = (type: string, rdata: string) => {
  const text = rdata.trim().split(/\s+/).join(' ');
  const fixed = { SSHFP: 2, SMIMEA: 3 }[type];
  if (fixed !== undefined) {
    const tokens = text.split(' ');
    return [...tokens.slice(0, fixed), tokens.slice(fixed).join('').toLowerCase()].join(' ');
  }
  if (type === 'TYPE65534') return text.toLowerCase();
  return text;
};

describe('dig and kdig print the new types as the API presents them', () => {
  let server: DnsServer;

  beforeAll(async () => {
    const records: ZoneRecord[] = [
      { name: ZONE, type: typeCode('SOA')!, ttl: 3600, rdata: encodeRdata('SOA', soaData(ZONE, 1)) },
      { name: ZONE, type: typeCode('NS')!, ttl: 3600, rdata: encodeRdata('NS', { nameserver: `ns1.${ZONE}` }) },
      ...RECORDS.map(([type, data], i) => ({ name: `r${i}.${ZONE}`, type: typeCode(type)!, ttl: 300, rdata: encodeRdata(type, data) })),
    ];
    const store = new ZoneStore();
    store.set(buildZoneSnapshot(ZONE, records));
    ({ server } = await startTestServer(store));
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const tool of ['dig', 'kdig'] as const) {
    it.for(RECORDS.map(([type, data], i) => ({ type, data, i })))(`${tool}: $type`, async ({ type, data, i }, ctx) => {
      const got = await digQuery(requireTool(tool, ctx), server.port, `r${i}.${ZONE}`, type);
      expect(got.status, got.output).toBe('NOERROR');
      expect(got.answer, got.output).toHaveLength(1);
      const [owner, ttl, klass, shownType, ...rdata] = got.answer[0]!.split(' ');
      expect([owner, ttl, klass, shownType]).toEqual([`r${i}.${ZONE}.`, '300', 'IN', type]);
      expect(comparable(type, rdata.join(' '))).toBe(comparable(type, asPrintedBy(tool, type, presentData(type, data))));
    });
  }
});
