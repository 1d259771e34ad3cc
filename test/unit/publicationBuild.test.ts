// The steps of one publication build over a draft (docs/publication.md): collect the touched
// records in wire form, synthesize the SOA and apex NS set, and the diff the sign step receives.
import { describe, expect, it } from 'vitest';
import { BuildError, collectTouched } from '../../src/publication/version/collectTouched.js';
import { signDraft } from '../../src/publication/version/signDraft.js';
import { synthesizeSystemRecords } from '../../src/publication/version/synthesizeSystemRecords.js';
import { draftDiff, type VersionDraft } from '../../src/publication/version/versionDraft.js';
import { encodeRecord } from '../../src/versionRecords/zoneRecords.js';
import { dnskeyRdata, dsRdata, generateZoneKey } from '../../nameserver/dnssec/keys.js';
import type { SignPolicy } from '../../nameserver/dnssec/signZone.js';

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
    const { after, nameservers } = synthesizeSystemRecords({ zone, serial: 2026112400, nameservers: ['ns1.dns.test', 'ns2.dns.test'], signing: null }, []);
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
    const before = synthesizeSystemRecords({ zone, serial: 2026112301, nameservers: ['ns1.dns.test', 'ns2.dns.test'], signing: null }, []).after;
    const same = draftDiff(
      draftOf(
        { removed: [], added: [], gone: [] },
        synthesizeSystemRecords({ zone, serial: 2026112400, nameservers: ['ns1.dns.test', 'ns2.dns.test'], signing: null }, before),
      ),
    );
    expect(same.removed.map((r) => r.type)).toEqual([6]);
    expect(same.added.map((r) => r.type)).toEqual([6]);

    const moved = draftDiff(
      draftOf(
        { removed: [], added: [], gone: [] },
        synthesizeSystemRecords({ zone, serial: 2026112400, nameservers: ['ns1.dns.test', 'ns3.dns.test'], signing: null }, before),
      ),
    );
    expect(moved.removed).toEqual([before[0], before[2]]);
    expect(moved.added.map((r) => r.type)).toEqual([6, 2]);
  });
});

describe('render the DNSSEC key sets', () => {
  const [ksk, zsk] = [generateZoneKey('ksk', 13), generateZoneKey('zsk', 13)];
  const retiring = dnskeyRdata(generateZoneKey('zsk', 13));
  const policy = (cds: SignPolicy['cds']): SignPolicy => ({ denial: 'nsec3', window: { inception: 0, expiration: 1 }, refreshBefore: 0, dnskeyTtl: 600, cds });
  const rendered = (cds: SignPolicy['cds'] | null) =>
    synthesizeSystemRecords(
      {
        zone,
        serial: 2026112400,
        nameservers: ['ns1.dns.test'],
        signing: cds === null ? null : { keys: { ksks: [ksk], zsks: [zsk], publishedOnly: [retiring, dnskeyRdata(zsk)] }, policy: policy(cds) },
      },
      [],
    ).after.filter((r) => r.type !== 6 && r.type !== 2);

  it('publishes every key once at the apex, at the DNSKEY TTL, with CDS and CDNSKEY for the KSK', () => {
    const at = (type: number) => rendered('keys').filter((r) => r.type === type);
    expect(at(48).map((r) => r.rdata)).toEqual([dnskeyRdata(ksk), dnskeyRdata(zsk), retiring]);
    expect(at(59).map((r) => r.rdata)).toEqual([dsRdata('example.com', dnskeyRdata(ksk))]);
    expect(at(60).map((r) => r.rdata)).toEqual([dnskeyRdata(ksk)]);
    expect(rendered('keys').every((r) => r.name === '@' && r.ttl === 600)).toBe(true);
  });

  it('publishes the RFC 8078 delete form, or no CDS at all, as the policy says; nothing where the version is unsigned', () => {
    expect(
      rendered('delete')
        .filter((r) => r.type === 59)
        .map((r) => r.rdata.toString('hex')),
    ).toEqual(['0000000000']);
    expect(rendered('none').map((r) => r.type)).toEqual([48, 48, 48]);
    expect(rendered(null)).toEqual([]);
  });
});

describe('sign', () => {
  it('leaves an unsigned zone that never was signed as it is, and removes every DNSSEC record of one that stops being signed', async () => {
    const system = synthesizeSystemRecords({ zone, serial: 2026112400, nameservers: ['ns1.dns.test'], signing: null }, []);
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
