// Zone snapshots: what a build accepts and refuses, what it derives (serial, negative TTL, RRsets,
// empty non-terminals), and how a diff makes the next snapshot without touching the previous one.
import { describe, expect, it } from 'vitest';
import { TYPE, type ZoneRecord } from '../../../nameserver/types.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { applyZoneDiff, buildZoneSnapshot, rrsetAt, signaturesAt, ZoneError } from '../../../nameserver/zone/snapshot.js';

const ORIGIN = 'example.com';
const rr = (name: string, type: keyof typeof TYPE, ttl: number, data: Record<string, unknown>): ZoneRecord => ({
  name,
  type: TYPE[type],
  ttl,
  rdata: encodeRdata(type, data),
});
const soa = (serial: number, { ttl = 3600, minimum = 300, name = ORIGIN } = {}) =>
  rr(name, 'SOA', ttl, { mname: `ns1.${ORIGIN}`, rname: `hostmaster.${ORIGIN}`, serial, refresh: 7200, retry: 3600, expire: 1209600, minimum });
const a = (name: string, address: string, ttl = 300) => rr(name, 'A', ttl, { address });
const rrsig = (name: string, covered: string) =>
  rr(name, 'RRSIG', 300, {
    type_covered: covered,
    algorithm: 13,
    labels: 3,
    original_ttl: 300,
    expiration: 1893456000,
    inception: 1704067200,
    key_tag: 4711,
    signer_name: ORIGIN,
    signature: 'c2ln',
  });

describe('buildZoneSnapshot', () => {
  it('derives the serial and the negative TTL min(SOA TTL, MINIMUM) (RFC 2308 §5)', () => {
    expect(buildZoneSnapshot(ORIGIN, [soa(2024010101, { ttl: 3600, minimum: 300 })])).toMatchObject({
      origin: ORIGIN,
      serial: 2024010101,
      negativeTtl: 300,
      recordCount: 1,
    });
    expect(buildZoneSnapshot(ORIGIN, [soa(7, { ttl: 60, minimum: 300 })]).negativeTtl).toBe(60);
    expect(buildZoneSnapshot(ORIGIN, [soa(0xffffffff)]).serial).toBe(0xffffffff);
  });

  it.each([
    ['no SOA', [a(`www.${ORIGIN}`, '192.0.2.1')], /no SOA/],
    ['two SOA records', [soa(1), soa(2)], /2 SOA records/],
    ['an SOA below the apex', [soa(1), soa(1, { name: `sub.${ORIGIN}` })], /only the apex/],
    ['a record outside the zone', [soa(1), a('www.example.org', '192.0.2.1')], /outside zone/],
    ['a name that merely ends like the zone', [soa(1), a('badexample.com', '192.0.2.1')], /outside zone/],
    ['an owner name in upper case', [soa(1), a(`WWW.${ORIGIN}`, '192.0.2.1')], /not lower case/],
    ['an SOA whose RDATA is not an SOA', [{ name: ORIGIN, type: TYPE.SOA, ttl: 3600, rdata: Buffer.from([0, 0, 0, 0]) }], /SOA RDATA/],
    ['an RRSIG too short to say what it covers', [soa(1), { name: ORIGIN, type: TYPE.RRSIG, ttl: 300, rdata: Buffer.from([0, 1]) }], /RRSIG RDATA/],
  ])('refuses %s', (_, records, message) => {
    expect(() => buildZoneSnapshot(ORIGIN, records)).toThrow(ZoneError);
    expect(() => buildZoneSnapshot(ORIGIN, records)).toThrow(message);
  });

  it('groups records into RRsets with the lowest TTL, each record once (RFC 2181 §5)', () => {
    const z = buildZoneSnapshot(ORIGIN, [
      soa(1),
      a(`www.${ORIGIN}`, '192.0.2.1', 600),
      a(`www.${ORIGIN}`, '192.0.2.2', 300),
      a(`www.${ORIGIN}`, '192.0.2.1', 900),
    ]);
    const set = rrsetAt(z.node(`www.${ORIGIN}`)!, TYPE.A)!;
    expect(set.rrset).toMatchObject({ name: `www.${ORIGIN}`, type: TYPE.A, ttl: 300 });
    expect(set.rrset.rdatas.map((r) => [...r].join('.'))).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(z.recordCount).toBe(3);
    // What a caller is given is its own: changing it does not change the zone.
    set.rrset.rdatas.pop();
    (set.rrset as { ttl: number }).ttl = 1;
    expect(rrsetAt(z.node(`www.${ORIGIN}`)!, TYPE.A)!.rrset).toMatchObject({ ttl: 300, rdatas: [expect.anything(), expect.anything()] });
  });

  it('decodes the targets of NS, CNAME, MX and SRV once, lower case', () => {
    const z = buildZoneSnapshot(ORIGIN, [
      soa(1),
      rr(ORIGIN, 'MX', 300, { preference: 10, exchange: 'Mail.Example.COM' }),
      rr(`_sip._tcp.${ORIGIN}`, 'SRV', 300, { priority: 1, weight: 2, port: 5060, target: 'sip.example.com' }),
      rr(`alias.${ORIGIN}`, 'CNAME', 300, { target: 'www.example.org' }),
    ]);
    expect(rrsetAt(z.apex, TYPE.MX)!.targets).toEqual(['mail.example.com']);
    expect(rrsetAt(z.node(`_sip._tcp.${ORIGIN}`)!, TYPE.SRV)!.targets).toEqual(['sip.example.com']);
    expect(rrsetAt(z.node(`alias.${ORIGIN}`)!, TYPE.CNAME)!.targets).toEqual(['www.example.org']);
    expect(rrsetAt(z.apex, TYPE.SOA)!.targets).toBeNull();
  });

  it('knows empty non-terminals (RFC 8020) as long as something below them holds data', () => {
    const z = buildZoneSnapshot(ORIGIN, [soa(1), a(`a.b.c.${ORIGIN}`, '192.0.2.1')]);
    expect(z.node(`b.c.${ORIGIN}`)).toMatchObject({ sets: [], descendants: 1 });
    expect(z.node(`c.${ORIGIN}`)).toMatchObject({ sets: [], descendants: 1 });
    expect(z.apex.descendants).toBe(1);
    const emptied = applyZoneDiff(z, { fromSerial: 1, toSerial: 2, removed: [soa(1), a(`a.b.c.${ORIGIN}`, '192.0.2.1')], added: [soa(2)] });
    expect(emptied.node(`b.c.${ORIGIN}`)).toBeUndefined();
    expect(emptied.node(`c.${ORIGIN}`)).toBeUndefined();
    expect(emptied.apex.descendants).toBe(0);
    expect(z.node(`c.${ORIGIN}`)).toBeDefined();
  });

  it('stores RRSIGs beside the RRsets they cover', () => {
    const z = buildZoneSnapshot(ORIGIN, [
      soa(1),
      a(`www.${ORIGIN}`, '192.0.2.1'),
      rrsig(`www.${ORIGIN}`, 'A'),
      rrsig(`www.${ORIGIN}`, 'AAAA'),
      rrsig(ORIGIN, 'SOA'),
    ]);
    const www = z.node(`www.${ORIGIN}`)!;
    expect(signaturesAt(www, TYPE.A)!.rrset).toMatchObject({ name: `www.${ORIGIN}`, type: TYPE.RRSIG });
    expect(signaturesAt(www, TYPE.AAAA)!.rrset.rdatas).toHaveLength(1);
    expect(signaturesAt(www, TYPE.TXT)).toBeUndefined();
    expect(rrsetAt(www, TYPE.RRSIG)).toBeUndefined();
    expect(signaturesAt(z.apex, TYPE.SOA)).toBeDefined();
    expect(z.recordCount).toBe(5);
  });

  it('keeps NSEC3 records out of the name tree (RFC 5155 §7.1): their owners are no names of the zone', () => {
    const hashed = `2vptu5timamqttgl4luu9kg21e0aor3s.${ORIGIN}`;
    const nsec3 = rr(hashed, 'NSEC3', 300, {
      hash_algorithm: 1,
      flags: 0,
      iterations: 0,
      salt: '',
      next_hashed_owner_name: '2VPTU5TIMAMQTTGL4LUU9KG21E0AOR3T',
      types: ['A'],
    });
    const z = buildZoneSnapshot(ORIGIN, [soa(1), nsec3, rrsig(hashed, 'NSEC3')]);
    expect(z.node(hashed)).toBeUndefined();
    expect(z.apex.descendants).toBe(0);
    expect(z.recordCount).toBe(3);
    expect([...z.records()].map((r) => r.type).sort()).toEqual([TYPE.SOA, TYPE.RRSIG, TYPE.NSEC3].sort());
  });

  it('lists every record with the SOA first (AXFR order), under the RRset TTL', () => {
    const records = [a(`www.${ORIGIN}`, '192.0.2.1', 600), a(`www.${ORIGIN}`, '192.0.2.2', 300), soa(9), a(`x.y.${ORIGIN}`, '192.0.2.3')];
    const listed = [...buildZoneSnapshot(ORIGIN, records).records()];
    expect(listed[0]).toMatchObject({ name: ORIGIN, type: TYPE.SOA, ttl: 3600 });
    expect(listed).toHaveLength(4);
    expect(listed.filter((r) => r.name === `www.${ORIGIN}`).map((r) => r.ttl)).toEqual([300, 300]);
  });

  it('serves the root zone too', () => {
    const z = buildZoneSnapshot('', [soa(1, { name: '' }), a('a.root-servers.net', '198.41.0.4')]);
    expect(z.node('net')).toMatchObject({ sets: [], descendants: 1 });
  });
});

describe('applyZoneDiff', () => {
  const base = buildZoneSnapshot(ORIGIN, [soa(1), a(`www.${ORIGIN}`, '192.0.2.1', 300), a(`www.${ORIGIN}`, '192.0.2.2', 60)]);

  it('removes, then adds; the previous snapshot stays unchanged', () => {
    const next = applyZoneDiff(base, {
      fromSerial: 1,
      toSerial: 2,
      removed: [soa(1), a(`www.${ORIGIN}`, '192.0.2.2')],
      added: [soa(2), a(`mail.${ORIGIN}`, '192.0.2.25')],
    });
    expect(next.serial).toBe(2);
    expect(next.recordCount).toBe(3);
    // The lowest TTL went with the removed record.
    expect(rrsetAt(next.node(`www.${ORIGIN}`)!, TYPE.A)!.rrset.ttl).toBe(300);
    expect(next.node(`mail.${ORIGIN}`)).toBeDefined();
    expect(base.serial).toBe(1);
    expect(base.recordCount).toBe(3);
    expect(rrsetAt(base.node(`www.${ORIGIN}`)!, TYPE.A)!.rrset.rdatas).toHaveLength(2);
    expect(base.node(`mail.${ORIGIN}`)).toBeUndefined();
  });

  it('changes a TTL as a removal and an addition of the same RDATA', () => {
    const next = applyZoneDiff(base, {
      fromSerial: 1,
      toSerial: 2,
      removed: [soa(1), a(`www.${ORIGIN}`, '192.0.2.2', 60)],
      added: [soa(2), a(`www.${ORIGIN}`, '192.0.2.2', 900)],
    });
    expect(rrsetAt(next.node(`www.${ORIGIN}`)!, TYPE.A)!.rrset.ttl).toBe(300);
    expect(next.recordCount).toBe(3);
  });

  it.each([
    ['starts from another serial', { fromSerial: 5, toSerial: 6, removed: [soa(5)], added: [soa(6)] }, /from serial 5/],
    ['does not replace the SOA', { fromSerial: 1, toSerial: 2, removed: [], added: [a(`x.${ORIGIN}`, '192.0.2.9')] }, /leaves .* at serial 1/],
    [
      'removes a record the zone does not hold',
      { fromSerial: 1, toSerial: 2, removed: [soa(1), a(`www.${ORIGIN}`, '192.0.2.99')], added: [soa(2)] },
      /no such type 1 record/,
    ],
    ['removes the SOA without a successor', { fromSerial: 1, toSerial: 2, removed: [soa(1)], added: [] }, /no SOA/],
    ['adds a record outside the zone', { fromSerial: 1, toSerial: 2, removed: [soa(1)], added: [soa(2), a('www.example.org', '192.0.2.1')] }, /outside zone/],
  ])('refuses a diff that %s, and the snapshot stays as it was', (_, diff, message) => {
    expect(() => applyZoneDiff(base, diff)).toThrow(message);
    expect(base.serial).toBe(1);
    expect(base.recordCount).toBe(3);
    expect([...base.records()]).toHaveLength(3);
  });
});
