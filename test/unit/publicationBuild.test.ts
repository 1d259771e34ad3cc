// The steps of one publication build over a draft (docs/publication.md): collect the touched
// records in wire form, synthesize the SOA and apex NS set, and the diff the sign step receives.
import { describe, expect, it } from 'vitest';
import { BuildError, collectTouched } from '../../src/publication/version/collectTouched.js';
import { signDraft } from '../../src/publication/version/signDraft.js';
import { synthesizeSystemRecords } from '../../src/publication/version/synthesizeSystemRecords.js';
import { draftDiff, type VersionDraft } from '../../src/publication/version/versionDraft.js';
import { encodeRecord } from '../../src/publication/zoneRecords.js';

const zone = { id: 'zon_x', name: 'example.com', defaultTtl: 3600, soaEmail: 'hostmaster@example.com' };
const served = (recordId: string, r: Parameters<typeof encodeRecord>[0]) => ({ recordId, ...encodeRecord(r) });
const a = (name: string, address: string, ttl = 3600) => ({ name, type: 'A', ttl, data: { address } });

const draftOf = (records: VersionDraft['records'], system: VersionDraft['system']): VersionDraft => ({
  zone,
  serial: 2026112400,
  fromSerial: 2026112301,
  records,
  system,
  signatures: { removed: [], added: [] },
});

describe('collect touched records', () => {
  it('compares stored and served records in wire form: unchanged ones are not in the diff', () => {
    const out = collectTouched(
      [
        { recordId: 'rec_same', ...a('www', '192.0.2.1') },
        { recordId: 'rec_ttl', ...a('api', '192.0.2.2', 60) },
        { recordId: 'rec_new', ...a('new', '192.0.2.3') },
      ],
      [served('rec_same', a('www', '192.0.2.1')), served('rec_ttl', a('api', '192.0.2.2')), served('rec_gone', a('old', '192.0.2.4'))],
    );
    expect(out.added.map((r) => [r.recordId, r.name, r.ttl])).toEqual([
      ['rec_ttl', 'api', 60],
      ['rec_new', 'new', 3600],
    ]);
    expect(out.removed.map((r) => r.recordId)).toEqual(['rec_ttl', 'rec_gone']);
    expect(out.gone).toEqual(['rec_gone']);
    expect([...out.added[1]!.rdata]).toEqual([192, 0, 2, 3]);
  });

  it('fails the build on a record the codec cannot encode', () => {
    expect(() => collectTouched([{ recordId: 'rec_bad', name: 'x', type: 'A', ttl: 60, data: { address: 'not-an-address' } }], [])).toThrow(BuildError);
  });
});

describe('synthesize the system records', () => {
  it('renders the SOA with the serial (MNAME the first nameserver) and the apex NS set, at the default TTL', () => {
    const { after, nameservers } = synthesizeSystemRecords(zone, 2026112400, ['ns1.dns.test', 'ns2.dns.test'], []);
    expect(nameservers).toEqual(['ns1.dns.test', 'ns2.dns.test']);
    const expected = [
      encodeRecord({
        name: '@',
        type: 'SOA',
        ttl: 3600,
        data: { mname: 'ns1.dns.test', rname: 'hostmaster.example.com', serial: 2026112400, refresh: 10800, retry: 3600, expire: 1209600, minimum: 300 },
      }),
      encodeRecord({ name: '@', type: 'NS', ttl: 3600, data: { nameserver: 'ns1.dns.test' } }),
      encodeRecord({ name: '@', type: 'NS', ttl: 3600, data: { nameserver: 'ns2.dns.test' } }),
    ];
    expect(after).toEqual(expected);
  });

  it('replaces the SOA in every diff, the NS set only when NAMESERVERS changed', () => {
    const before = synthesizeSystemRecords(zone, 2026112301, ['ns1.dns.test', 'ns2.dns.test'], []).after;
    const same = draftDiff(draftOf({ removed: [], added: [], gone: [] }, synthesizeSystemRecords(zone, 2026112400, ['ns1.dns.test', 'ns2.dns.test'], before)));
    expect(same.removed.map((r) => r.type)).toEqual([6]);
    expect(same.added.map((r) => r.type)).toEqual([6]);

    const moved = draftDiff(draftOf({ removed: [], added: [], gone: [] }, synthesizeSystemRecords(zone, 2026112400, ['ns1.dns.test', 'ns3.dns.test'], before)));
    expect(moved.removed).toEqual([before[0], before[2]]);
    expect(moved.added.map((r) => r.type)).toEqual([6, 2]);
  });
});

describe('sign', () => {
  it('leaves an unsigned zone that never was signed as it is, and removes every DNSSEC record of one that stops being signed', async () => {
    const system = synthesizeSystemRecords(zone, 2026112400, ['ns1.dns.test'], []);
    const draft = draftOf(collectTouched([{ recordId: 'rec_1', ...a('www', '192.0.2.1') }], []), system);
    expect(draftDiff(draft).added).toHaveLength(3);
    const unsigned = [...draft.records.added, ...system.after];
    expect(await signDraft({ zoneName: zone.name, signing: null, unsigned, previous: { records: unsigned, dnssec: [] } })).toEqual({ removed: [], added: [] });
    const leftover = { recordId: 'dnssec:x', name: '@', type: 48, ttl: 3600, rdata: Buffer.from('0101030d', 'hex') };
    expect(await signDraft({ zoneName: zone.name, signing: null, unsigned, previous: { records: unsigned, dnssec: [leftover] } })).toEqual({
      removed: [leftover],
      added: [],
    });
  });
});
