// Records written as presentation text (docs/records.md "Data or content"): a panel pastes what
// `dig` prints as `content` instead of building `data`. For every type the text stores the same
// record as the equivalent data; names are relative to the zone; the RFC 3597 `\#` form reads for
// any type; exactly one of data and content; unreadable text is a 422 at /content with the
// reader's reason; change sets may mix both; templates take content relative to the zone they are
// applied to; and the content the API returns, sent back, is the same record. BIND reads each
// text as we do. Real service, real HTTP, real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';
import { createRecord, createZone, type DnsLab, listAll, startDnsLab, validationErrors } from '../helpers/dnsLab.js';

let lab: DnsLab;
beforeAll(async () => {
  lab = await startDnsLab();
  await createZone(api(), ZONE);
  // A customer's prefix brings its reverse zone, an ordinary zone of the customer's for records.
  const prefix = await lab.platform.post('/prefixes', { cidr: '192.0.2.0/24', tenant_id: lab.tokens.tenants.customers[0] });
  expect(prefix.status, prefix.text).toBe(201);
  expect(prefix.body.zones[0].name).toBe(REVERSE);
});
afterAll(() => lab?.close());

const api = () => lab.customerA;
const ZONE = 'content.test';
const REVERSE = '2.0.192.in-addr.arpa';
const LONG_TXT = `v=DKIM1; k=rsa; p=${'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.repeat(7)}`;
const HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const userRecords = (zone: string) => listAll(api(), `/zones/${zone}/records?include_system=false`);

/** Creates the record, returns what the API stored, and deletes it again. */
async function storedFor(zone: string, body: Record<string, unknown>): Promise<{ data: unknown; content: string }> {
  const record = await createRecord(api(), zone, body);
  const remove = await api().delete(`/zones/${zone}/records/${record.id}`);
  expect(remove.status, remove.text).toBe(202);
  return { data: record.data, content: record.content };
}

// Each: a record given as data, the same record as text (relative names relative to the zone).
// `joined`: several character-strings of a TXT are one `text` here (docs/records.md), so the
// served strings differ from the ones written (BIND keeps them apart).
const CASES: { type: string; name: string; data: Record<string, unknown>; content: string; zone?: string; what: string; joined?: true }[] = [
  { what: 'address', type: 'A', name: 'www', data: { address: '192.0.2.10' }, content: '192.0.2.10' },
  { what: 'long form', type: 'AAAA', name: 'www', data: { address: '2001:db8::1' }, content: '2001:DB8:0:0:0:0:0:1' },
  { what: 'relative target', type: 'CNAME', name: 'shop', data: { target: 'shops.content.test' }, content: 'shops' },
  { what: 'absolute target', type: 'CNAME', name: 'shop2', data: { target: 'shops.example.net' }, content: 'Shops.Example.NET.' },
  { what: 'relative exchange', type: 'MX', name: '@', data: { preference: 10, exchange: 'mail.content.test' }, content: '10 mail' },
  { what: 'exchange @', type: 'MX', name: '@', data: { preference: 5, exchange: 'content.test' }, content: '5 @' },
  { what: 'null MX', type: 'MX', name: '@', data: { preference: 0, exchange: '.' }, content: '0 .' },
  { what: 'one quoted string', type: 'TXT', name: 'x', data: { text: 'hello world' }, content: '"hello world"' },
  { what: 'unquoted word', type: 'TXT', name: 'x', data: { text: 'hello' }, content: 'hello' },
  {
    what: 'strings joined',
    type: 'TXT',
    name: '@',
    data: { text: 'v=spf1 include:_spf.example.net -all' },
    content: '"v=spf1 " "include:_spf.example.net -all"',
    joined: true,
  },
  // What dig prints for a TXT over 255 octets: the strings the API itself splits it into.
  { what: 'over 255 octets', type: 'TXT', name: 'dkim', data: { text: LONG_TXT }, content: `"${LONG_TXT.slice(0, 255)}" "${LONG_TXT.slice(255)}"` },
  { what: 'escapes', type: 'TXT', name: 'x', data: { text: 'say "hi" \\ café;' }, content: '"say \\"hi\\" \\\\ caf\\195\\169;"' },
  {
    what: 'relative target',
    type: 'SRV',
    name: '_sip._tcp',
    data: { priority: 10, weight: 60, port: 5060, target: 'sip.content.test' },
    content: '10 60 5060 sip',
  },
  { what: 'issuer', type: 'CAA', name: '@', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, content: '0 issue "letsencrypt.org"' },
  {
    what: 'upper-case tag',
    type: 'CAA',
    name: '@',
    data: { flags: 128, tag: 'iodef', value: 'mailto:sec@content.test' },
    content: '128 IODEF "mailto:sec@content.test"',
  },
  {
    what: 'hex split across lines in parentheses',
    type: 'TLSA',
    name: '_443._tcp.www',
    data: { usage: 3, selector: 1, matching_type: 1, certificate_data: HASH },
    content: `3 1 1 ( ${HASH.slice(0, 32).toUpperCase()} ; first half\n ${HASH.slice(32)} )`,
  },
  { what: 'relative nameserver', type: 'NS', name: 'sub', data: { nameserver: 'ns1.sub.content.test' }, content: 'ns1.sub' },
  { what: 'digest', type: 'DS', name: 'sub', data: { key_tag: 12345, algorithm: 13, digest_type: 2, digest: HASH }, content: `12345 13 2 ${HASH}` },
  { what: 'absolute target', type: 'PTR', name: '10', zone: REVERSE, data: { target: 'host.example.com' }, content: 'host.example.com.' },
  { what: 'relative target', type: 'PTR', name: '11', zone: REVERSE, data: { target: 'host.2.0.192.in-addr.arpa' }, content: 'host' },
  // The example: what a panel pastes from dig, alpn unquoted as kdig prints it.
  {
    what: 'service mode, unquoted alpn list',
    type: 'HTTPS',
    name: 'api',
    data: { priority: 1, target: '.', params: { alpn: ['h3', 'h2'], port: 443 } },
    content: '1 . alpn=h3,h2 port=443',
  },
  { what: 'alias mode, relative target', type: 'SVCB', name: '_dns', data: { priority: 0, target: 'doh.content.test' }, content: '0 doh' },
  // RFC 3597 §5: the generic form for a type we know, read by its codec.
  { what: 'generic \\# form', type: 'A', name: 'generic', data: { address: '192.0.2.10' }, content: '\\# 4 C000020A' },
  {
    what: 'generic \\# form with a name',
    type: 'MX',
    name: 'generic',
    data: { preference: 10, exchange: 'mail.content.test' },
    content: '\\# 21 000a 046d61696c 07636f6e74656e74 0474657374 00',
  },
  { what: 'generic \\# form', type: 'TXT', name: 'generic', data: { text: 'hi' }, content: '\\# 3 026869' },
];

/**
 * Presentation text as both sides print it: BIND keeps the case a name, a CAA tag or hex was
 * written in (none of them case-sensitive data, RFC 4343; the TXT samples are lower case), and
 * splits a long trailing hex field (TLSA, DS) into groups of 56 digits.
 */
const comparable = (type: string, text: string) => {
  const lower = text.toLowerCase();
  return type === 'TLSA' || type === 'DS' ? lower.replace(/\s+/g, '') : lower;
};

describe('content stores the same record as the equivalent data', () => {
  it.each(CASES)('$type ($what): $content', async ({ type, name, data, content, zone = ZONE }) => {
    const viaData = await storedFor(zone, { type, name, data });
    const viaContent = await storedFor(zone, { type, name, content });
    expect(viaContent).toEqual(viaData);
  });

  it('BIND reads every text as we do: named-compilezone with $ORIGIN the zone prints the content the API returns', async (ctx) => {
    const compile = requireTool('named-compilezone', ctx);
    for (const zone of [ZONE, REVERSE]) {
      const cases = CASES.filter((c) => (c.zone ?? ZONE) === zone && !c.joined);
      const lines = cases.map((c) => `${c.name} 300 IN ${c.type} ${c.content}`);
      const text = `$ORIGIN ${zone}.\n@ 300 IN SOA ns1.example.net. hostmaster.example.net. 1 3600 600 86400 300\n@ 300 IN NS ns1.example.net.\n${lines.join('\n')}\n`;
      const file = tempFile(`${zone}.zone`, text);
      let compiled: string;
      try {
        const run = runTool(compile, ['-i', 'none', '-k', 'ignore', '-s', 'full', '-o', '-', zone, file.file]);
        expect(run.status, run.output).toBe(0);
        compiled = run.stdout;
      } finally {
        file.remove();
      }
      for (const c of cases) {
        const { content } = await storedFor(zone, { type: c.type, name: c.name, content: c.content });
        const owner = c.name === '@' ? `${zone}.` : `${c.name}.${zone}.`;
        const bind = compiled
          .split('\n')
          .map((l) => l.split(/\s+/))
          .filter((f) => f[0] === owner && f[3] === c.type)
          .map((f) => comparable(c.type, f.slice(4).join(' ')));
        expect(bind, `${c.type} ${c.content}`).toContain(comparable(c.type, content));
      }
    }
  });
});

describe('a name that repeats the zone', () => {
  it('is relative as written, stored so, with the warning the owner gets (name_repeats_zone)', async () => {
    const res = await api().post(`/zones/${ZONE}/records`, { type: 'MX', name: 'slip', content: '10 mail.content.test' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.exchange).toBe('mail.content.test.content.test');
    expect(res.body.warnings).toEqual([
      expect.objectContaining({ code: 'name_repeats_zone', detail: expect.stringContaining('mail.content.test.content.test') }),
    ]);
    const absolute = await api().post(`/zones/${ZONE}/records`, { type: 'MX', name: 'slip', content: '20 mail.content.test.' });
    expect(absolute.status, absolute.text).toBe(201);
    expect(absolute.body.warnings).toEqual([]);
    for (const r of [res.body, absolute.body]) expect((await api().delete(`/zones/${ZONE}/records/${r.id}`)).status).toBe(202);
  });
});

describe('PATCH with content', () => {
  it('changes the data as the equivalent data would; neither keeps the data; both is 422', async () => {
    const record = await createRecord(api(), ZONE, { type: 'MX', name: 'patch', data: { preference: 10, exchange: 'mx1.example.net' } });
    const change = await api().patch(`/zones/${ZONE}/records/${record.id}`, { content: '20 mx2' });
    expect(change.status, change.text).toBe(200);
    expect(change.body).toMatchObject({ data: { preference: 20, exchange: 'mx2.content.test' }, content: '20 mx2.content.test.' });

    const ttlOnly = await api().patch(`/zones/${ZONE}/records/${record.id}`, { ttl: 600 });
    expect(ttlOnly.status, ttlOnly.text).toBe(200);
    expect(ttlOnly.body.data).toEqual({ preference: 20, exchange: 'mx2.content.test' });

    const both = validationErrors(
      await api().patch(`/zones/${ZONE}/records/${record.id}`, { content: '30 mx3', data: { preference: 30, exchange: 'mx3.example.net' } }),
    );
    expect(both).toEqual([expect.objectContaining({ pointer: '/content', code: 'data_and_content' })]);
    const bad = validationErrors(await api().patch(`/zones/${ZONE}/records/${record.id}`, { content: 'mx3' }));
    expect(bad).toEqual([expect.objectContaining({ pointer: '/content', code: 'invalid_rdata' })]);
    expect((await api().get(`/zones/${ZONE}/records/${record.id}`)).body.content).toBe('20 mx2.content.test.');
    expect((await api().delete(`/zones/${ZONE}/records/${record.id}`)).status).toBe(202);
  });
});

describe('422 for content: located, with the reader’s reason, nothing stored', () => {
  it.each([
    ['both data and content', 'A', { data: { address: '192.0.2.1' }, content: '192.0.2.1' }, '/content', 'data_and_content', /not both/],
    ['neither', 'A', {}, '/data', 'required', /"data".*"content"/],
    ['a field missing', 'MX', { content: '10' }, '/content', 'invalid_rdata', /"exchange" is missing/],
    ['a field too many', 'A', { content: '192.0.2.1 192.0.2.2' }, '/content', 'invalid_rdata', /unexpected "192\.0\.2\.2"/],
    ['not a number', 'MX', { content: 'ten mail' }, '/content', 'invalid_rdata', /"preference" must be a decimal number/],
    ['an unterminated quote', 'TXT', { content: '"hello' }, '/content', 'unterminated_quote', /./],
    ['a bad escape', 'TXT', { content: '"\\300"' }, '/content', 'invalid_escape', /000 to 255/],
    ['two records', 'A', { content: '192.0.2.1\n192.0.2.2' }, '/content', 'invalid_rdata', /Exactly one A record/],
    ['empty', 'A', { content: '' }, '/content', 'invalid_rdata', /"address" is missing/],
    ['a name with an empty label', 'CNAME', { content: 'a..b' }, '/content', 'empty_label', /./],
    ['the type’s rule (address)', 'A', { content: '192.0.2.300' }, '/content', 'invalid_ipv4', /^A "address": /],
    ['the type’s rule (null MX)', 'MX', { content: '5 .' }, '/content', 'null_mx_preference', /RFC 7505/],
    ['the type’s rule (single label)', 'CNAME', { content: 'localhost.' }, '/content', 'single_label', /"target"/],
    ['\\# with the wrong length', 'A', { content: '\\# 5 c0000201' }, '/content', 'invalid_rdata', /length says 5 octets but the hex has 4/],
    ['\\# that is not the type’s layout', 'A', { content: '\\# 3 c00002' }, '/content', 'invalid_rdata', /fields of A/],
    ['not a string', 'A', { content: 42 }, '/content', null, /./],
  ])('%s', async (_what, type, body, pointer, code, detail) => {
    const errors = validationErrors(await api().post(`/zones/${ZONE}/records`, { type, name: 'bad', ...body }));
    expect(errors).toHaveLength(1);
    expect(errors[0].pointer).toBe(pointer);
    if (code) expect(errors[0].code).toBe(code);
    expect(errors[0].detail).toMatch(detail);
    expect((await userRecords(ZONE)).filter((r) => r.name === 'bad')).toEqual([]);
  });
});

describe('change sets and zone creation', () => {
  it('a change set mixes data and content items, replace_rrset included', async () => {
    const zone = 'mixed.test';
    await createZone(api(), zone);
    const existing = await createRecord(api(), zone, { type: 'A', name: 'old', data: { address: '192.0.2.1' } });
    const res = await api().post(`/zones/${zone}/changesets`, {
      changes: [
        { op: 'create', record: { type: 'A', name: 'www', data: { address: '192.0.2.10' } } },
        { op: 'create', record: { type: 'MX', name: '@', content: '10 mail' } },
        { op: 'update', id: existing.id, record: { content: '192.0.2.2' } },
        { op: 'replace_rrset', name: 'txt', type: 'TXT', records: [{ text: 'from data' }, '"from content" " joined"'] },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const rows = (await userRecords(zone)).map((r) => `${r.name} ${r.type} ${r.content}`).sort();
    expect(rows).toEqual(['@ MX 10 mail.mixed.test.', 'old A 192.0.2.2', 'txt TXT "from content joined"', 'txt TXT "from data"', 'www A 192.0.2.10']);
  });

  it('reports every bad item at its own pointer into the request', async () => {
    const zone = 'mixed.test';
    const before = await userRecords(zone);
    const errors = validationErrors(
      await api().post(`/zones/${zone}/changesets`, {
        changes: [
          { op: 'create', record: { type: 'A', name: 'ok', content: '192.0.2.20' } },
          { op: 'create', record: { type: 'A', name: 'both', data: { address: '192.0.2.21' }, content: '192.0.2.21' } },
          { op: 'create', record: { type: 'A', name: 'neither' } },
          { op: 'create', record: { type: 'MX', name: 'bad', content: '10' } },
          { op: 'replace_rrset', name: 'txt', type: 'TXT', records: [{ text: 'fine' }, '"unterminated'] },
        ],
      }),
    );
    expect(errors.map((e) => [e.index, e.pointer, e.code])).toEqual([
      [1, '/changes/1/record/content', 'data_and_content'],
      [2, '/changes/2/record/data', 'required'],
      [3, '/changes/3/record/content', 'invalid_rdata'],
      [4, '/changes/4/records/1', 'unterminated_quote'],
    ]);
    expect(await userRecords(zone)).toEqual(before);
  });

  it('POST /zones takes initial records as content, relative to the new zone', async () => {
    await createZone(api(), 'initial.test', { records: [{ type: 'MX', name: '@', content: '10 mail' }] });
    expect((await userRecords('initial.test')).map((r) => r.content)).toEqual(['10 mail.initial.test.']);
  });
});

describe('templates with content', () => {
  it('renders placeholders into the text and reads it against the zone it is applied to', async () => {
    const define = await lab.reseller.post('/templates', {
      name: 'Content template',
      variables: [
        { name: 'mail_host', kind: 'hostname', required: true },
        { name: 'spf', kind: 'string', required: false, default: 'v=spf1 mx -all' },
      ],
      records: [
        { type: 'MX', name: '@', content: '10 mail' },
        { type: 'MX', name: '@', content: '20 {{mail_host}}.' },
        { type: 'TXT', name: '@', content: '"{{spf}}"' },
        { type: 'CNAME', name: 'www', content: '@' },
        { type: 'A', name: 'mail', data: { address: '192.0.2.25' } },
      ],
    });
    expect(define.status, define.text).toBe(201);
    expect(define.body.records[0]).toEqual({ type: 'MX', name: '@', content: '10 mail' });

    for (const zone of ['tpl-one.test', 'tpl-two.test']) {
      await createZone(api(), zone);
      const res = await api().post(`/zones/${zone}/apply-template`, { template_id: define.body.id, variables: { mail_host: 'backup.example.net' } });
      expect(res.status, res.text).toBe(201);
      const rows = (await userRecords(zone)).map((r) => `${r.name} ${r.type} ${r.content}`).sort();
      expect(rows).toEqual([`@ MX 10 mail.${zone}.`, '@ MX 20 backup.example.net.', '@ TXT "v=spf1 mx -all"', 'mail A 192.0.2.25', `www CNAME ${zone}.`]);
    }
  });

  it('fills variables into nested data too: an HTTPS record’s params', async () => {
    const define = await lab.reseller.post('/templates', {
      name: 'HTTPS template',
      variables: [
        { name: 'ip', kind: 'ipv4', required: true },
        { name: 'proto', kind: 'string', required: false, default: 'h3' },
      ],
      records: [
        { type: 'HTTPS', name: '@', data: { priority: 1, target: '.', params: { alpn: ['{{proto}}', 'h2'], ipv4hint: ['{{ip}}'] } } },
        { type: 'HTTPS', name: 'www', content: '1 . alpn={{proto}} ipv4hint={{ip}}' },
      ],
    });
    expect(define.status, define.text).toBe(201);
    await createZone(api(), 'tpl-https.test');
    const res = await api().post('/zones/tpl-https.test/apply-template', { template_id: define.body.id, variables: { ip: '192.0.2.80' } });
    expect(res.status, res.text).toBe(201);
    const rows = (await userRecords('tpl-https.test')).map((r) => `${r.name} ${r.type} ${r.content}`).sort();
    expect(rows).toEqual(['@ HTTPS 1 . alpn="h3,h2" ipv4hint=192.0.2.80', 'www HTTPS 1 . alpn="h3" ipv4hint=192.0.2.80']);
  });

  it('checks content when the definition is stored: exactly one of data and content, readable text', async () => {
    const errors = validationErrors(
      await lab.reseller.post('/templates', {
        name: 'Bad content',
        variables: [],
        records: [
          { type: 'A', name: 'both', data: { address: '192.0.2.1' }, content: '192.0.2.1' },
          { type: 'A', name: 'neither' },
          { type: 'MX', name: '@', content: 'ten mail' },
        ],
      }),
    );
    expect(errors.map((e) => [e.pointer, e.code])).toEqual([
      ['/records/0/content', 'data_and_content'],
      ['/records/1/data', 'required'],
      ['/records/2/content', 'invalid_rdata'],
    ]);
  });
});

describe('round trip: the content the API returns, sent back as content, is the same record', () => {
  it('for a record of every type written as data', async () => {
    const source = 'roundtrip-a.test';
    const target = 'roundtrip-b.test';
    await createZone(api(), source);
    await createZone(api(), target);
    const written = [];
    for (const [i, c] of CASES.filter((c) => !c.zone).entries()) {
      // One name per record: no CNAME beside other data, no duplicates.
      const name = c.name === '@' ? `r${i}` : `${c.name}.r${i}`;
      written.push(await createRecord(api(), source, { type: c.type, name, data: c.data }));
    }
    for (const record of written) {
      const back = await createRecord(api(), target, { type: record.type, name: record.name, content: record.content });
      expect({ data: back.data, content: back.content }, `${record.type} ${record.content}`).toEqual({ data: record.data, content: record.content });
    }
  });
});

describe('OpenAPI', () => {
  it('describes content beside data wherever a record is written', async () => {
    const res = await fetch(`${lab.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    const deref = (schema: any): any =>
      schema?.$ref
        ? deref(
            schema.$ref
              .split('/')
              .slice(1)
              .reduce((o: any, k: string) => o[k], doc),
          )
        : schema;
    const bodyOf = (path: string, method: string) => deref(doc.paths[path][method].requestBody.content['application/json'].schema);
    for (const [path, method] of [
      ['/zones/{zone}/records', 'post'],
      ['/zones/{zone}/records/{record}', 'patch'],
    ] as const) {
      const body = bodyOf(path, method);
      expect(body.properties.content.type, `${method} ${path}`).toBe('string');
      expect(body.properties.content.description).toMatch(/presentation format.*RFC 3597/);
      expect(body.required ?? []).not.toContain('data');
      expect(body.required ?? []).not.toContain('content');
    }
    const template = deref(bodyOf('/templates', 'post').properties.records.items);
    expect(template.properties.content.description).toMatch(/relative to the zone the template is applied to/);
  });
});
