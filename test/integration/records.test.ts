// Records (spec "Record", "Endpoints / Records", docs/records.md): create, read, change and
// delete every supported type with realistic data; owner and target names; per-type validation
// with pointers into the record body; the list and its filters and order; read-only system
// records; If-Match; the invariants (no duplicate, CNAME alone, no CNAME or NS at the apex, no PTR
// in a forward zone); one TTL per RRset; and the change set behind every write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/apiClient.js';
import { expectProblem } from '../helpers/assertions.js';
import { createRecord, createZone, type DnsLab, listAll, nextLink, startDnsLab, validationErrors, walk, withoutWarnings } from '../helpers/dnsLab.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab();
});
afterAll(() => lab?.close());

const api = () => lab.customerA;
const records = (zone: string, query = '') => listAll(api(), `/zones/${zone}/records${query}`);
const userRecords = (zone: string) => records(zone, '?include_system=false');

/** The change set a write produced exists, belongs to the zone and is pending. */
async function expectPendingChangeSet(zone: string, id: string) {
  expect(id).toMatch(/^chg_/);
  const res = await api().get(`/zones/${zone}/changesets/${id}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ id, zone, state: 'pending', kind: 'records' });
  return res.body;
}

describe('CRUD for every record type', () => {
  beforeAll(async () => {
    await createZone(api(), 'crud.test');
  });

  const LONG_TXT = `v=DKIM1; k=rsa; p=${'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.repeat(7)}`;
  const HASH = 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855';

  it.each([
    {
      type: 'A',
      name: 'www',
      data: { address: '192.0.2.10' },
      stored: { address: '192.0.2.10' },
      content: '192.0.2.10',
      patch: { address: '192.0.2.11' },
      patched: '192.0.2.11',
    },
    {
      type: 'AAAA',
      name: 'www',
      data: { address: '2001:DB8:0:0:0:0:0:1' },
      stored: { address: '2001:db8::1' },
      content: '2001:db8::1',
      patch: { address: '2001:db8::2' },
      patched: '2001:db8::2',
    },
    {
      type: 'CNAME',
      name: 'shop',
      data: { target: 'Shops.Example.NET.' },
      stored: { target: 'shops.example.net' },
      content: 'shops.example.net.',
      patch: { target: 'shop.crud.test' },
      patched: 'shop.crud.test.',
    },
    {
      type: 'MX',
      name: '@',
      data: { preference: 10, exchange: 'mx1.mail.example.' },
      stored: { preference: 10, exchange: 'mx1.mail.example' },
      content: '10 mx1.mail.example.',
      patch: { preference: 20, exchange: 'mx2.mail.example' },
      patched: '20 mx2.mail.example.',
    },
    {
      type: 'TXT',
      name: 'mail._domainkey',
      data: { text: LONG_TXT },
      stored: { text: LONG_TXT },
      // Longer than 255 bytes: split into character-strings of at most 255 octets.
      content: `"${LONG_TXT.slice(0, 255)}" "${LONG_TXT.slice(255)}"`,
      patch: { text: 'v=DKIM1; p=' },
      patched: '"v=DKIM1; p="',
    },
    {
      type: 'SRV',
      name: '_sip._tcp',
      data: { priority: 10, weight: 60, port: 5060, target: 'SIP.crud.test.' },
      stored: { priority: 10, weight: 60, port: 5060, target: 'sip.crud.test' },
      content: '10 60 5060 sip.crud.test.',
      patch: { priority: 20, weight: 0, port: 5061, target: 'sip2.crud.test' },
      patched: '20 0 5061 sip2.crud.test.',
    },
    {
      type: 'CAA',
      name: '@',
      data: { flags: 0, tag: 'ISSUE', value: 'LetsEncrypt.org' },
      stored: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      content: '0 issue "letsencrypt.org"',
      patch: { flags: 128, tag: 'iodef', value: 'mailto:security@crud.test' },
      patched: '128 iodef "mailto:security@crud.test"',
    },
    {
      // RFC 8659 §4.1: any well-formed tag; a critical one the CA does not know forbids issuance.
      type: 'CAA',
      name: 'critical',
      data: { flags: 128, tag: 'tag0', value: 'critical' },
      stored: { flags: 128, tag: 'tag0', value: 'critical' },
      content: '128 tag0 "critical"',
      patch: { flags: 0, tag: 'contactemail', value: 'security@crud.test' },
      patched: '0 contactemail "security@crud.test"',
    },
    {
      type: 'TLSA',
      name: '_443._tcp.www',
      data: { usage: 3, selector: 1, matching_type: 1, certificate_data: `${HASH.slice(0, 32)} ${HASH.slice(32)}` },
      stored: { usage: 3, selector: 1, matching_type: 1, certificate_data: HASH.toLowerCase() },
      content: `3 1 1 ${HASH.toLowerCase()}`,
      patch: { usage: 2, selector: 0, matching_type: 1, certificate_data: HASH.toLowerCase() },
      patched: `2 0 1 ${HASH.toLowerCase()}`,
    },
    {
      type: 'NS',
      name: 'customers',
      data: { nameserver: 'NS1.Delegated.Example.' },
      stored: { nameserver: 'ns1.delegated.example' },
      content: 'ns1.delegated.example.',
      patch: { nameserver: 'ns2.delegated.example' },
      patched: 'ns2.delegated.example.',
    },
  ])('$type: create, read, change, delete', async ({ type, name, data, stored, content, patch, patched }) => {
    const create = await api().post('/zones/crud.test/records', { type, name, data, ttl: 3600, comment: `the ${type} record` });
    expect(create.status, create.text).toBe(201);
    const record = withoutWarnings(create.body);
    expect(create.body.warnings).toEqual([]);
    expect(record).toMatchObject({ type, name, ttl: 3600, data: stored, content, system: false, comment: `the ${type} record` });
    expect(record.id).toMatch(/^rec_/);
    expect(create.headers.get('location')).toBe(`/api/v1/zones/crud.test/records/${record.id}`);
    expect(record.publication.state).toBe('pending');
    const createdBy = await expectPendingChangeSet('crud.test', record.publication.changeset_id);
    expect(createdBy.summary).toMatchObject({ created: 1, updated: 0, deleted: 0 });

    const get = await api().get(`/zones/crud.test/records/${record.id}`);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(record);
    expect(get.headers.get('etag')).toBe(create.headers.get('etag'));
    expect((await api().get(`/zones/crud.test/records/${record.id}`, { headers: { 'If-None-Match': get.headers.get('etag')! } })).status).toBe(304);

    const change = await api().patch(`/zones/crud.test/records/${record.id}`, { data: patch, comment: null });
    expect(change.status, change.text).toBe(200);
    expect(change.body).toMatchObject({ id: record.id, type, name, ttl: 3600, content: patched, comment: null });
    expect(change.body.publication.changeset_id).not.toBe(record.publication.changeset_id);
    expect(change.headers.get('etag')).not.toBe(create.headers.get('etag'));
    expect((await api().get(`/zones/crud.test/records/${record.id}`)).body).toEqual(withoutWarnings(change.body));
    await expectPendingChangeSet('crud.test', change.body.publication.changeset_id);

    const remove = await api().delete(`/zones/crud.test/records/${record.id}`);
    expect(remove.status, remove.text).toBe(202);
    expect(remove.body).toMatchObject({ state: 'pending', kind: 'records', summary: { created: 0, updated: 0, deleted: 1 } });
    expect(remove.body.id).toMatch(/^chg_/);
    await expectPendingChangeSet('crud.test', remove.body.id);
    expectProblem(await api().get(`/zones/crud.test/records/${record.id}`), 404, 'not_found');
    expect(await userRecords('crud.test')).toEqual([]);
  });
});

describe('names in input and output', () => {
  beforeAll(async () => {
    await createZone(api(), 'names.test');
  });
  const ownerOf = async (name: string) => (await createRecord(api(), 'names.test', { type: 'TXT', name, data: { text: `owner ${name}` } })).name;

  it('stores owners zone-relative, lower case, A-label, without the trailing dot; @ is the apex', async () => {
    expect(await ownerOf('@')).toBe('@');
    expect(await ownerOf('')).toBe('@');
    expect(await ownerOf('names.test.')).toBe('@');
    expect(await ownerOf('WWW')).toBe('www');
    expect(await ownerOf('api.names.test.')).toBe('api');
    expect(await ownerOf('Deep.Sub.NAMES.test.')).toBe('deep.sub');
    expect(await ownerOf('Bücher')).toBe('xn--bcher-kva');
    expect(await ownerOf('*.dev')).toBe('*.dev');
    expect(await ownerOf('_dmarc')).toBe('_dmarc');
    // Without the final dot a name is relative, even when it repeats the zone (docs/records.md).
    expect(await ownerOf('www.names.test')).toBe('www.names.test');
    const byUlabel = await listAll(api(), `/zones/names.test/records?name=${encodeURIComponent('BÜCHER')}`);
    expect(byUlabel.map((r) => r.name)).toEqual(['xn--bcher-kva']);
  });

  it('refuses owners outside the zone or malformed, pointing at /name', async () => {
    for (const [name, code] of [
      ['www.other.test.', 'outside_zone'],
      ['a..b', 'empty_label'],
      ['-www', 'invalid_hyphen'],
      ['www.*', 'invalid_wildcard'],
      ['sp ace', 'invalid_character'],
      [`${'x'.repeat(64)}`, 'label_too_long'],
    ]) {
      const errors = validationErrors(await api().post('/zones/names.test/records', { type: 'A', name, data: { address: '192.0.2.1' } }));
      expect(errors, name).toEqual([expect.objectContaining({ pointer: '/name', code })]);
    }
  });

  it('strips the trailing dot of target host names, lower-cases them and converts U-labels', async () => {
    const cname = await createRecord(api(), 'names.test', { type: 'CNAME', name: 'alias', data: { target: 'WWW.Example.COM.' } });
    expect(cname.data).toEqual({ target: 'www.example.com' });
    expect(cname.content).toBe('www.example.com.');
    const mx = await createRecord(api(), 'names.test', { type: 'MX', name: '@', data: { preference: 5, exchange: 'Mail.Bücher.Example.' } });
    expect(mx.data).toEqual({ preference: 5, exchange: 'mail.xn--bcher-kva.example' });
    const ns = await createRecord(api(), 'names.test', { type: 'NS', name: 'lab', data: { nameserver: 'ns.EXAMPLE.org' } });
    expect(ns.data).toEqual({ nameserver: 'ns.example.org' });
    // Every name in every answer is lower case without a trailing dot.
    for (const r of await records('names.test')) {
      expect(r.name).toBe(r.name.toLowerCase());
      expect(r.name.endsWith('.')).toBe(false);
      for (const v of Object.values(r.data)) if (typeof v === 'string' && r.type !== 'TXT') expect(v.endsWith('.') && v !== '.').toBe(false);
    }
  });

  it('addresses records of a U-label zone under both forms of the zone name', async () => {
    await createZone(api(), 'münchen.test');
    const rec = await createRecord(api(), encodeURIComponent('münchen.test'), { type: 'A', name: 'www.münchen.test.', data: { address: '192.0.2.80' } });
    expect(rec.name).toBe('www');
    expect((await api().get(`/zones/xn--mnchen-3ya.test/records/${rec.id}`)).body.id).toBe(rec.id);
  });
});

describe('per-type validation: 422 with a pointer into the record body', () => {
  beforeAll(async () => {
    await createZone(api(), 'invalid.test');
  });

  it.each([
    ['A', 'www', { address: '192.0.2.300' }, '/data/address', 'invalid_ipv4'],
    ['A', 'www', { address: '192.0.2.01' }, '/data/address', 'invalid_ipv4'],
    ['A', 'www', { address: '2001:db8::1' }, '/data/address', 'invalid_ipv4'],
    ['A', 'www', {}, '/data/address', 'required'],
    ['A', 'www', { address: '192.0.2.1', port: 80 }, '/data/port', 'unknown_field'],
    ['AAAA', 'www', { address: '192.0.2.1' }, '/data/address', 'invalid_ipv6'],
    ['AAAA', 'www', { address: 'fe80::1%eth0' }, '/data/address', 'invalid_ipv6'],
    ['CNAME', 'www', { target: 'localhost' }, '/data/target', 'single_label'],
    ['CNAME', 'www', { target: '192.0.2.1' }, '/data/target', 'ip_not_allowed'],
    ['MX', '@', { preference: 70000, exchange: 'mx.example.com' }, '/data/preference', null],
    ['MX', '@', { preference: '10', exchange: 'mx.example.com' }, '/data/preference', 'invalid_type'],
    ['MX', '@', { preference: 5, exchange: '.' }, '/data/preference', 'null_mx_preference'],
    ['TXT', '@', { text: '' }, '/data/text', 'too_small'],
    ['TXT', '@', { text: 'x'.repeat(8193) }, '/data/text', 'too_big'],
    ['SRV', 'sip', { priority: 1, weight: 1, port: 5060, target: 'sip.example.com' }, '/name', 'owner_not_allowed'],
    ['SRV', '_sip._tcp', { priority: 1, weight: 1, port: 70000, target: 'sip.example.com' }, '/data/port', null],
    ['CAA', '@', { flags: 0, tag: 'issue_r', value: 'letsencrypt.org' }, '/data/tag', 'invalid_tag'],
    ['CAA', '@', { flags: 0, tag: 'iodef', value: 'security@example.com' }, '/data/value', 'invalid_iodef'],
    ['CAA', '@', { flags: 256, tag: 'issue', value: 'letsencrypt.org' }, '/data/flags', null],
    ['TLSA', '_443._tcp', { usage: 3, selector: 1, matching_type: 1, certificate_data: 'xyz' }, '/data/certificate_data', 'invalid_hex'],
    ['TLSA', '_443._tcp', { usage: 3, selector: 1, matching_type: 1, certificate_data: 'ab'.repeat(31) }, '/data/certificate_data', 'invalid_digest_length'],
    ['TLSA', '_443._tcp', { usage: 4, selector: 1, matching_type: 0, certificate_data: 'abcd' }, '/data/usage', null],
    ['TLSA', 'www', { usage: 3, selector: 1, matching_type: 0, certificate_data: 'abcd' }, '/name', 'owner_not_allowed'],
    ['NS', '@', { nameserver: 'ns1.example.com' }, '/name', 'owner_not_allowed'],
    ['NS', '*.dev', { nameserver: 'ns1.example.com' }, '/name', 'owner_not_allowed'],
    ['PTR', 'www', { target: 'host.example.com' }, '/type', 'type_not_allowed_in_zone'],
    ['SOA', '@', { mname: 'ns1.example.com' }, '/type', 'unsupported_type'],
    ['SPF', '@', { text: 'v=spf1 -all' }, '/type', 'unsupported_type'],
    ['CNAME', '@', { target: 'www.example.com' }, '/name', 'owner_not_allowed'],
  ])('%s %s %j → %s', async (type, name, data, pointer, code) => {
    const res = await api().post('/zones/invalid.test/records', { type, name, data });
    const errors = validationErrors(res);
    expect(errors[0].pointer).toBe(pointer);
    if (code) expect(errors[0].code).toBe(code);
    // A single-record write is no list: no item index.
    expect(errors[0].index).toBeUndefined();
    expect(await userRecords('invalid.test')).toEqual([]);
  });

  it.each([
    [59, 422],
    [60, 201],
    [604_800, 201],
    [604_801, 422],
    [300.5, 422],
    ['300', 422],
  ])('ttl %j → %i', async (ttl, status) => {
    const res = await api().post('/zones/invalid.test/records', { type: 'TXT', name: `ttl-${String(ttl).replace('.', '-')}`, data: { text: 'ttl' }, ttl });
    expect(res.status, res.text).toBe(status);
    if (status === 422) expect(validationErrors(res)[0].pointer).toBe('/ttl');
    else expect(res.body.ttl).toBe(ttl);
  });
});

describe('GET /zones/{zone}/records: filters and order', () => {
  const ZONE = 'listing.test';
  let live: string;
  beforeAll(async () => {
    await createZone(api(), ZONE, {
      records: [
        { type: 'A', name: 'www', data: { address: '192.0.2.3' } },
        { type: 'TXT', name: '@', data: { text: 'v=spf1 mx -all' } },
        { type: 'A', name: '@', data: { address: '192.0.2.2' } },
        { type: 'A', name: '@', data: { address: '192.0.2.1' } },
        { type: 'MX', name: '@', data: { preference: 10, exchange: `mx.${ZONE}` } },
        { type: 'AAAA', name: 'www', data: { address: '2001:db8::3' } },
        { type: 'CNAME', name: 'api', data: { target: `www.${ZONE}` } },
        { type: 'SRV', name: '_sip._tcp', data: { priority: 10, weight: 5, port: 5060, target: `sip.${ZONE}` } },
      ],
    });
    // Written later, in a change set of its own that a later issue's pipeline would publish.
    live = (await createRecord(api(), ZONE, { type: 'A', name: 'mail', data: { address: '192.0.2.25' } })).publication.changeset_id;
    await lab.sql.query(`UPDATE change_sets SET state = 'live' WHERE id = $1`, [live]);
  });

  const rows = (list: any[]) => list.map((r) => `${r.name} ${r.type} ${r.content}`);
  const ALL = [
    '@ A 192.0.2.1',
    '@ A 192.0.2.2',
    `@ MX 10 mx.${ZONE}.`,
    '@ NS ns1.lab-dns.test.',
    '@ NS ns2.lab-dns.test.',
    expect.stringMatching(/^@ SOA ns1\.lab-dns\.test\. /),
    '@ TXT "v=spf1 mx -all"',
    `_sip._tcp SRV 10 5 5060 sip.${ZONE}.`,
    `api CNAME www.${ZONE}.`,
    'mail A 192.0.2.25',
    'www A 192.0.2.3',
    'www AAAA 2001:db8::3',
  ];

  it('orders by name (apex first), then type, then content; system records carry system: true', async () => {
    const list = await records(ZONE);
    expect(rows(list)).toEqual(ALL);
    expect(list.filter((r) => r.system).map((r) => r.type)).toEqual(['NS', 'NS', 'SOA']);
  });

  it('type (repeatable), name (exact, @ for the apex), include_system=false', async () => {
    expect(rows(await records(ZONE, '?type=A'))).toEqual(['@ A 192.0.2.1', '@ A 192.0.2.2', 'mail A 192.0.2.25', 'www A 192.0.2.3']);
    expect(rows(await records(ZONE, '?type=AAAA&type=CNAME'))).toEqual([`api CNAME www.${ZONE}.`, 'www AAAA 2001:db8::3']);
    expect(rows(await records(ZONE, '?type=MX,SRV'))).toEqual([`@ MX 10 mx.${ZONE}.`, `_sip._tcp SRV 10 5 5060 sip.${ZONE}.`]);
    expect((await records(ZONE, '?name=@')).map((r) => r.type)).toEqual(['A', 'A', 'MX', 'NS', 'NS', 'SOA', 'TXT']);
    expect(rows(await records(ZONE, '?name=www'))).toEqual(['www A 192.0.2.3', 'www AAAA 2001:db8::3']);
    expect(rows(await records(ZONE, `?name=WWW.${ZONE.toUpperCase()}.`))).toEqual(['www A 192.0.2.3', 'www AAAA 2001:db8::3']);
    // Exact, not a prefix or substring.
    expect(await records(ZONE, '?name=ww')).toEqual([]);
    expect(rows(await records(ZONE, '?name=@&type=A'))).toEqual(['@ A 192.0.2.1', '@ A 192.0.2.2']);
    const user = await records(ZONE, '?include_system=false');
    expect(rows(user)).toEqual(ALL.filter((_, i) => ![3, 4, 5].includes(i)));
    expect(user.every((r) => r.system === false)).toBe(true);
    expect(validationErrors(await api().get(`/zones/${ZONE}/records?type=AFSDB`))[0]).toMatchObject({ in: 'query' });
    expect(validationErrors(await api().get(`/zones/${ZONE}/records?name=${encodeURIComponent('x.other.test.')}`))[0]).toMatchObject({
      in: 'query',
      pointer: '/name',
      code: 'outside_zone',
    });
  });

  it('q: case-insensitive substring over name and presentation content', async () => {
    expect(rows(await records(ZONE, '?q=192.0.2.2'))).toEqual(['@ A 192.0.2.2', 'mail A 192.0.2.25']);
    expect(rows(await records(ZONE, '?q=SPF1'))).toEqual(['@ TXT "v=spf1 mx -all"']);
    // "www" is the name of two records and the content of the CNAME.
    expect(rows(await records(ZONE, '?q=WWW'))).toEqual([`api CNAME www.${ZONE}.`, 'www A 192.0.2.3', 'www AAAA 2001:db8::3']);
    expect(rows(await records(ZONE, '?q=_sip'))).toEqual([`_sip._tcp SRV 10 5 5060 sip.${ZONE}.`]);
    expect(rows(await records(ZONE, '?q=ns2.lab'))).toEqual(['@ NS ns2.lab-dns.test.']);
    expect(await records(ZONE, '?q=%25')).toEqual([]);
    expect(validationErrors(await api().get(`/zones/${ZONE}/records?q=${'x'.repeat(256)}`))[0]).toMatchObject({ in: 'query', pointer: '/q' });
  });

  it('publication_state: the state of each record’s last change set', async () => {
    expect(rows(await records(ZONE, '?publication_state=live'))).toEqual(['mail A 192.0.2.25']);
    const mail = (await records(ZONE, '?name=mail'))[0];
    expect(mail.publication).toEqual({ state: 'live', changeset_id: live });
    expect(rows(await records(ZONE, '?publication_state=pending'))).toEqual(ALL.filter((r) => r !== 'mail A 192.0.2.25'));
    expect(rows(await records(ZONE, '?publication_state=pending,live'))).toEqual(ALL);
    expect(await records(ZONE, '?publication_state=failed')).toEqual([]);
  });

  it('walks the list with a cursor and Link headers', async () => {
    const pages = await walk(api(), `/zones/${ZONE}/records?limit=5`);
    expect(pages.map((p) => p.body.data.length)).toEqual([5, 5, 2]);
    expect(rows(pages.flatMap((p) => p.body.data))).toEqual(ALL);
    const viaLink = await api().get(nextLink(pages[1]!)!);
    expect(viaLink.body.data).toEqual(pages[2]!.body.data);
    const filtered = await walk(api(), `/zones/${ZONE}/records?limit=1&type=A`);
    expect(filtered.flatMap((p) => p.body.data).map((r: any) => r.content)).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.25', '192.0.2.3']);
  });
});

describe('changing and deleting records', () => {
  const ZONE = 'changes.test';
  beforeAll(async () => {
    await createZone(api(), ZONE);
  });

  it('PATCH cannot change the type (422), but may repeat it', async () => {
    const rec = await createRecord(api(), ZONE, { type: 'A', name: 'typed', data: { address: '192.0.2.1' } });
    const res = await api().patch(`/zones/${ZONE}/records/${rec.id}`, { type: 'AAAA', data: { address: '2001:db8::1' } });
    expect(validationErrors(res)[0]).toMatchObject({ pointer: '/type', code: 'immutable' });
    expect((await api().get(`/zones/${ZONE}/records/${rec.id}`)).body).toEqual(rec);
    const same = await api().patch(`/zones/${ZONE}/records/${rec.id}`, { type: 'A', data: { address: '192.0.2.2' } });
    expect(same.status, same.text).toBe(200);
    expect(same.body.content).toBe('192.0.2.2');
  });

  it('PATCH validates data as the complete object of the record’s type, pointing into the body', async () => {
    const rec = await createRecord(api(), ZONE, { type: 'MX', name: 'mx-patch', data: { preference: 10, exchange: 'mx.example.com' } });
    expect(validationErrors(await api().patch(`/zones/${ZONE}/records/${rec.id}`, { data: { preference: 20 } }))[0]).toMatchObject({
      pointer: '/data/exchange',
      code: 'required',
    });
    expect(validationErrors(await api().patch(`/zones/${ZONE}/records/${rec.id}`, { name: 'a..b' }))[0]).toMatchObject({ pointer: '/name' });
    expect(validationErrors(await api().patch(`/zones/${ZONE}/records/${rec.id}`, { ttl: 1 }))[0]).toMatchObject({ pointer: '/ttl' });
    const moved = await api().patch(`/zones/${ZONE}/records/${rec.id}`, { name: 'Renamed' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ name: 'renamed', data: { preference: 10, exchange: 'mx.example.com' } });
  });

  it('system records are read-only: 403 record_readonly on PATCH and DELETE', async () => {
    const system = await records(ZONE, '?name=@&type=SOA&type=NS');
    expect(system.map((r) => r.type)).toEqual(['NS', 'NS', 'SOA']);
    for (const r of system) {
      expect(r.system).toBe(true);
      expectProblem(await api().patch(`/zones/${ZONE}/records/${r.id}`, { ttl: 600 }), 403, 'record_readonly');
      expectProblem(await api().delete(`/zones/${ZONE}/records/${r.id}`), 403, 'record_readonly');
    }
    expect(await records(ZONE, '?name=@&type=SOA&type=NS')).toEqual(system);
  });

  it('If-Match on PATCH and DELETE: a stale ETag is 412 at the If-Match header and changes nothing', async () => {
    const created = await api().post(`/zones/${ZONE}/records`, { type: 'A', name: 'guarded', data: { address: '192.0.2.1' } });
    const stale = created.headers.get('etag')!;
    const fresh = await api().patch(`/zones/${ZONE}/records/${created.body.id}`, { comment: 'changed by someone else' }, { headers: { 'If-Match': stale } });
    expect(fresh.status).toBe(200);
    const current = fresh.headers.get('etag')!;
    expect(current).not.toBe(stale);

    const patch = await api().patch(`/zones/${ZONE}/records/${created.body.id}`, { data: { address: '192.0.2.99' } }, { headers: { 'If-Match': stale } });
    expectProblem(patch, 412, 'precondition_failed');
    expect(patch.body.errors).toEqual([expect.objectContaining({ in: 'header', pointer: '/If-Match', code: 'etag_mismatch' })]);
    const del = await api().delete(`/zones/${ZONE}/records/${created.body.id}`, { headers: { 'If-Match': stale } });
    expectProblem(del, 412, 'precondition_failed');
    expect(del.body.errors).toEqual([expect.objectContaining({ in: 'header', pointer: '/If-Match' })]);
    expect((await api().get(`/zones/${ZONE}/records/${created.body.id}`)).body).toEqual(withoutWarnings(fresh.body));

    expect((await api().delete(`/zones/${ZONE}/records/${created.body.id}`, { headers: { 'If-Match': current } })).status).toBe(202);
  });

  it('answers 404 for an unknown record, and for a record of another zone', async () => {
    await createZone(api(), 'other-changes.test');
    const elsewhere = await createRecord(api(), 'other-changes.test', { type: 'A', name: 'x', data: { address: '192.0.2.1' } });
    expectProblem(await api().get(`/zones/${ZONE}/records/${elsewhere.id}`), 404, 'not_found');
    expectProblem(await api().patch(`/zones/${ZONE}/records/${elsewhere.id}`, { ttl: 600 }), 404, 'not_found');
    expectProblem(await api().delete(`/zones/${ZONE}/records/${elsewhere.id}`), 404, 'not_found');
    expectProblem(await lab.customerB.get(`/zones/other-changes.test/records/${elsewhere.id}`), 404, 'not_found');
  });
});

describe('invariants on single-record writes', () => {
  const ZONE = 'rules.test';
  beforeAll(async () => {
    await createZone(api(), ZONE);
  });
  const post = (record: Record<string, unknown>) => api().post(`/zones/${ZONE}/records`, record);
  const rows = (list: any[]) => list.map((r) => `${r.name} ${r.type} ${r.content}`);
  const firstError = (res: ApiResponse) => validationErrors(res)[0];

  it('no duplicate record: the same name, type and content (in any spelling) exists once', async () => {
    await createRecord(api(), ZONE, { type: 'A', name: 'dup', data: { address: '192.0.2.1' } });
    expect(firstError(await post({ type: 'A', name: 'dup', data: { address: '192.0.2.1' } }))).toMatchObject({ code: 'duplicate' });
    expect(firstError(await post({ type: 'A', name: `DUP.${ZONE}.`, data: { address: ' 192.0.2.1 ' } }))).toMatchObject({ code: 'duplicate' });
    await createRecord(api(), ZONE, { type: 'AAAA', name: 'dup', data: { address: '2001:db8::1' } });
    expect(firstError(await post({ type: 'AAAA', name: 'dup', data: { address: '2001:0db8:0:0::1' } }))).toMatchObject({ code: 'duplicate' });
    const other = await createRecord(api(), ZONE, { type: 'A', name: 'dup', data: { address: '192.0.2.2' } });
    // Changing a record into a copy of another is a duplicate too.
    expect(firstError(await api().patch(`/zones/${ZONE}/records/${other.id}`, { data: { address: '192.0.2.1' } }))).toMatchObject({ code: 'duplicate' });
    expect((await records(ZONE, '?name=dup')).map((r) => r.content)).toEqual(['192.0.2.1', '192.0.2.2', '2001:db8::1']);
  });

  it('a CNAME stands alone at its name', async () => {
    await createRecord(api(), ZONE, { type: 'A', name: 'host', data: { address: '192.0.2.1' } });
    const alias = await createRecord(api(), ZONE, { type: 'CNAME', name: 'alias', data: { target: 'host.rules.test' } });
    expect(firstError(await post({ type: 'CNAME', name: 'host', data: { target: 'elsewhere.example' } }))).toMatchObject({
      pointer: '/name',
      code: 'cname_conflict',
    });
    expect(firstError(await post({ type: 'TXT', name: 'alias', data: { text: 'next to a CNAME' } }))).toMatchObject({
      pointer: '/name',
      code: 'cname_conflict',
    });
    expect(firstError(await post({ type: 'CNAME', name: 'alias', data: { target: 'second.example' } }))).toMatchObject({ code: 'cname_conflict' });
    // Moving a record next to the CNAME, or the CNAME next to a record.
    const txt = await createRecord(api(), ZONE, { type: 'TXT', name: 'mover', data: { text: 'moving' } });
    expect(firstError(await api().patch(`/zones/${ZONE}/records/${txt.id}`, { name: 'alias' }))).toMatchObject({ code: 'cname_conflict' });
    expect(firstError(await api().patch(`/zones/${ZONE}/records/${alias.id}`, { name: 'host' }))).toMatchObject({ code: 'cname_conflict' });
    expect(rows(await records(ZONE, '?name=alias'))).toEqual(['alias CNAME host.rules.test.']);
    expect(rows(await records(ZONE, '?name=host'))).toEqual(['host A 192.0.2.1']);
  });

  it('no CNAME and no NS at the apex, no PTR in a forward zone', async () => {
    expect(firstError(await post({ type: 'CNAME', name: '@', data: { target: 'www.example.com' } }))).toMatchObject({
      pointer: '/name',
      code: 'owner_not_allowed',
    });
    expect(firstError(await post({ type: 'NS', name: '@', data: { nameserver: 'ns.example.com' } }))).toMatchObject({
      pointer: '/name',
      code: 'owner_not_allowed',
    });
    expect(firstError(await post({ type: 'NS', name: `${ZONE}.`, data: { nameserver: 'ns.example.com' } }))).toMatchObject({
      pointer: '/name',
      code: 'owner_not_allowed',
    });
    expect(firstError(await post({ type: 'PTR', name: '1', data: { target: 'host.example.com' } }))).toMatchObject({
      pointer: '/type',
      code: 'type_not_allowed_in_zone',
    });
    const ns = await createRecord(api(), ZONE, { type: 'NS', name: 'delegated', data: { nameserver: 'ns.example.com' } });
    expect(firstError(await api().patch(`/zones/${ZONE}/records/${ns.id}`, { name: '@' }))).toMatchObject({ pointer: '/name', code: 'owner_not_allowed' });
    expect((await records(ZONE, '?name=@')).map((r) => [r.type, r.system])).toEqual([
      ['NS', true],
      ['NS', true],
      ['SOA', true],
    ]);
  });
});

describe('TTL: one TTL per RRset, null means the zone default', () => {
  const ZONE = 'ttl.test';
  beforeAll(async () => {
    await createZone(api(), ZONE, { default_ttl: 1800 });
  });
  const ttls = async (name: string, type: string) => Object.fromEntries((await records(ZONE, `?name=${name}&type=${type}`)).map((r) => [r.content, r.ttl]));

  it('a second record with its own TTL aligns the RRset; a record without ttl takes the RRset’s', async () => {
    const first = await createRecord(api(), ZONE, { type: 'A', name: 'www', data: { address: '192.0.2.1' }, ttl: 600 });
    const second = await createRecord(api(), ZONE, { type: 'A', name: 'www', data: { address: '192.0.2.2' }, ttl: 300 });
    expect(second.ttl).toBe(300);
    expect(await ttls('www', 'A')).toEqual({ '192.0.2.1': 300, '192.0.2.2': 300 });
    // The aligned record was changed by the second write's change set.
    const aligned = (await api().get(`/zones/${ZONE}/records/${first.id}`)).body;
    expect(aligned.publication.changeset_id).toBe(second.publication.changeset_id);
    const cs = await expectPendingChangeSet(ZONE, second.publication.changeset_id);
    expect(cs.summary).toMatchObject({ created: 1, updated: 1 });

    const third = await createRecord(api(), ZONE, { type: 'A', name: 'www', data: { address: '192.0.2.3' } });
    expect(third.ttl).toBe(300);
    // Another type at the same name is another RRset.
    const txt = await createRecord(api(), ZONE, { type: 'TXT', name: 'www', data: { text: 'other rrset' } });
    expect(txt.ttl).toBeNull();
    const txt2 = await createRecord(api(), ZONE, { type: 'TXT', name: 'www', data: { text: 'still other' }, ttl: 900 });
    expect(txt2.ttl).toBe(900);
    expect(await ttls('www', 'A')).toEqual({ '192.0.2.1': 300, '192.0.2.2': 300, '192.0.2.3': 300 });
    expect(await ttls('www', 'TXT')).toEqual({ '"other rrset"': 900, '"still other"': 900 });

    // PATCH of one record's TTL moves the whole RRset.
    const patched = await api().patch(`/zones/${ZONE}/records/${third.id}`, { ttl: 120 });
    expect(patched.status).toBe(200);
    expect(await ttls('www', 'A')).toEqual({ '192.0.2.1': 120, '192.0.2.2': 120, '192.0.2.3': 120 });
  });

  it('ttl: null is the zone default_ttl, for the whole RRset, and follows default_ttl changes', async () => {
    const a = await createRecord(api(), ZONE, { type: 'A', name: 'dflt', data: { address: '192.0.2.1' }, ttl: 600 });
    const b = await createRecord(api(), ZONE, { type: 'A', name: 'dflt', data: { address: '192.0.2.2' }, ttl: null });
    expect(b.ttl).toBeNull();
    expect(await ttls('dflt', 'A')).toEqual({ '192.0.2.1': null, '192.0.2.2': null });
    // A record without any ttl in a new RRset gets null, the zone default.
    const c = await createRecord(api(), ZONE, { type: 'MX', name: 'dflt', data: { preference: 10, exchange: 'mx.example.com' } });
    expect(c.ttl).toBeNull();
    const zone = await api().patch(`/zones/${ZONE}`, { default_ttl: 7200 });
    expect(zone.body.default_ttl).toBe(7200);
    // Still null: they follow the zone default instead of copying it.
    expect((await api().get(`/zones/${ZONE}/records/${a.id}`)).body.ttl).toBeNull();
    const { rows } = await lab.sql.query(
      `SELECT r.content, COALESCE(r.ttl, z.default_ttl) AS effective FROM records r JOIN zones z ON z.id = r.zone_id
       WHERE z.name = $1 AND r.name = 'dflt' ORDER BY r.content`,
      [ZONE],
    );
    expect(rows.map((r) => r.effective)).toEqual([7200, 7200, 7200]);
  });

  it('every RRset in the database has exactly one TTL', async () => {
    const { rows } = await lab.sql.query(
      `SELECT r.name, r.type FROM records r JOIN zones z ON z.id = r.zone_id WHERE z.name = $1
       GROUP BY r.name, r.type HAVING COUNT(DISTINCT COALESCE(r.ttl, -1)) > 1`,
      [ZONE],
    );
    expect(rows).toEqual([]);
  });
});
