// Record templates (spec "Template rules", TemplateApplyRequest, ZoneCreate.template, features):
// which templates a tenant sees (the built-ins, its ancestors' and its own), who may define and
// change them, how a definition is validated, how apply-template renders variables and treats
// existing RRsets (skip, replace, the CNAME rule), dry runs, the `template` change set and its
// idempotent replay, the Microsoft 365 built-in, templates at zone creation, and the `templates`
// and `zone_import` feature gates. Real service, real HTTP, real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { expectProblem } from '../helpers/assertions.js';
import { issueToken } from '../helpers/credentials.js';
import { createRecord, createZone, type DnsLab, listAll, newCustomer, startDnsLab, validationErrors } from '../helpers/dnsLab.js';

const BUILTINS = ['web-hosting', 'mail', 'microsoft-365', 'google-workspace'];
const ROOMY = { limits: { api_rate_limit_per_minute: 100_000 } };

let lab: DnsLab;
/** Tenant ids. */
const T = {} as Record<'platform' | 'reseller' | 'customerA' | 'customerB' | 'reseller2' | 'customerC' | 'customerP', string>;
let reseller2: ApiClient;
let customerC: ApiClient;
let customerP: ApiClient;
/** Templates defined in the fixtures, by owner. */
const tpl = {} as Record<'platform' | 'reseller' | 'reseller2', any>;

const definition = (name: string, text = name) => ({
  name,
  description: `Fixture ${name}`,
  variables: [{ name: 'label', kind: 'string', required: false, default: 'fixture' }],
  records: [{ type: 'TXT', name: '{{label}}', data: { text: text } }],
});

const tokenFor = async (tenantId: string): Promise<ApiClient> => lab.as((await issueToken(lab.platform, tenantId, [...SCOPES], `client of ${tenantId}`)).token);

async function createTenant(body: Record<string, unknown>): Promise<string> {
  const res = await lab.platform.post('/tenants', { ...ROOMY, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function defineTemplate(api: ApiClient, body: Record<string, unknown>): Promise<any> {
  const res = await api.post('/templates', body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const records = (api: ApiClient, zone: string) => listAll(api, `/zones/${zone}/records?include_system=false&limit=500`);
const rows = (list: any[]) => list.map((r) => `${r.name} ${r.type} ${r.content}`).sort();
const changeSets = (api: ApiClient, zone: string) => listAll(api, `/zones/${zone}/changesets`);
const apply = (api: ApiClient, zone: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  api.post(`/zones/${zone}/apply-template`, body, { headers });

beforeAll(async () => {
  lab = await startDnsLab();
  Object.assign(T, {
    platform: lab.tokens.tenants.platform,
    reseller: lab.tokens.tenants.reseller,
    customerA: lab.tokens.tenants.customers[0],
    customerB: lab.tokens.tenants.customers[1],
  });
  T.reseller2 = await createTenant({ type: 'reseller', name: 'Second Reseller' });
  T.customerC = await createTenant({ type: 'customer', name: 'Customer C', parent_id: T.reseller2 });
  T.customerP = await createTenant({ type: 'customer', name: 'Direct Customer P' });
  reseller2 = await tokenFor(T.reseller2);
  customerC = await tokenFor(T.customerC);
  customerP = await tokenFor(T.customerP);
  tpl.platform = await defineTemplate(lab.platform, definition('Platform standard'));
  tpl.reseller = await defineTemplate(lab.reseller, definition('Reseller standard'));
  tpl.reseller2 = await defineTemplate(reseller2, definition('Reseller 2 standard'));
});
afterAll(() => lab?.close());

describe('which templates a tenant sees', () => {
  it('lists the built-ins, then its ancestors’ templates and its own, and nothing of other subtrees', async () => {
    const expected: [string, () => ApiClient, any[]][] = [
      ['platform', () => lab.platform, [tpl.platform]],
      ['reseller', () => lab.reseller, [tpl.platform, tpl.reseller]],
      ['customer A', () => lab.customerA, [tpl.platform, tpl.reseller]],
      ['customer B', () => lab.customerB, [tpl.platform, tpl.reseller]],
      ['reseller acting as customer A', () => lab.reseller.with({ 'X-Act-As-Customer': T.customerA }), [tpl.platform, tpl.reseller]],
      ['reseller 2', () => reseller2, [tpl.platform, tpl.reseller2]],
      ['customer C', () => customerC, [tpl.platform, tpl.reseller2]],
      ['platform acting as customer C', () => lab.platform.with({ 'X-Act-As-Customer': T.customerC }), [tpl.platform, tpl.reseller2]],
      ['customer P', () => customerP, [tpl.platform]],
    ];
    for (const [who, api, own] of expected) {
      const res = await api().get('/templates');
      expect(res.status, `${who}: ${res.text}`).toBe(200);
      const ids = res.body.data.map((t: any) => t.id);
      expect(ids.slice(0, 4), who).toEqual(BUILTINS);
      expect(ids.slice(4).sort(), who).toEqual(own.map((t) => t.id).sort());
      expect(
        res.body.data.slice(0, 4).every((t: any) => t.builtin === true && t.tenant_id === null),
        who,
      ).toBe(true);
      expect(
        res.body.data.slice(4).every((t: any) => t.builtin === false && typeof t.tenant_id === 'string'),
        who,
      ).toBe(true);
      // Each visible one can be read; the other subtree's cannot (like a missing one).
      for (const t of own) expect((await api().get(`/templates/${t.id}`)).status, `${who} GET ${t.name}`).toBe(200);
      for (const t of [tpl.platform, tpl.reseller, tpl.reseller2].filter((x) => !own.includes(x) && who !== 'platform')) {
        expectProblem(await api().get(`/templates/${t.id}`), 404, 'not_found');
      }
    }
    expectProblem(await lab.customerA.get(`/templates/tpl_${'a'.repeat(26)}`), 404, 'not_found');
    // The platform reads templates of its subtree (not listed, not applicable: they are the resellers').
    for (const t of [tpl.reseller, tpl.reseller2]) expect((await lab.platform.get(`/templates/${t.id}`)).body.tenant_id).toBe(t.tenant_id);
    await createZone(lab.platform, 'platform-own.test');
    expect(validationErrors(await apply(lab.platform, 'platform-own.test', { template_id: tpl.reseller.id }))).toEqual([
      expect.objectContaining({ pointer: '/template_id' }),
    ]);
  });

  it('answers a built-in by its id, with its variables and records', async () => {
    const res = await lab.customerA.get('/templates/web-hosting');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: 'web-hosting', builtin: true, tenant_id: null });
    expect(res.body.variables.map((v: any) => [v.name, v.kind, v.required])).toEqual([
      ['ipv4', 'ipv4', true],
      ['ipv6', 'ipv6', false],
    ]);
    expect(res.headers.get('etag')).toBeTruthy();
  });

  it('lets only the platform and resellers define templates: a customer gets 403 forbidden', async () => {
    const before = await lab.sql.query('SELECT count(*)::int AS n FROM templates');
    for (const api of [lab.customerA, customerC, customerP, lab.reseller.with({ 'X-Act-As-Customer': T.customerB })]) {
      expectProblem(await api.post('/templates', definition('Customer made')), 403, 'forbidden');
    }
    expect((await lab.sql.query('SELECT count(*)::int AS n FROM templates')).rows[0].n).toBe(before.rows[0].n);
  });

  it('lets only the owning tenant change or delete a template: its customers and others get 404', async () => {
    const mine = await defineTemplate(lab.reseller, definition('Reseller editable'));
    const stored = async () => (await lab.sql.query('SELECT name, records FROM templates WHERE id = $1', [mine.id])).rows;
    const before = await stored();
    for (const api of [lab.customerA, lab.reseller.with({ 'X-Act-As-Customer': T.customerA }), reseller2, customerC]) {
      expectProblem(await api.patch(`/templates/${mine.id}`, { name: 'Hijacked' }), 404, 'not_found');
      expectProblem(await api.delete(`/templates/${mine.id}`), 404, 'not_found');
    }
    // Not even the platform above it: a template is changed by its owner only.
    expectProblem(await lab.platform.patch(`/templates/${mine.id}`, { name: 'Hijacked' }), 404, 'not_found');
    expect(await stored()).toEqual(before);
    // A customer cannot change its reseller's either: still 404, not 403.
    expectProblem(await lab.customerA.patch(`/templates/${tpl.reseller.id}`, { description: 'x' }), 404, 'not_found');

    const patched = await lab.reseller.patch(`/templates/${mine.id}`, {
      name: 'Reseller edited',
      records: [{ type: 'TXT', name: 'edited', data: { text: 'v2' } }],
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Reseller edited', records: [{ type: 'TXT', name: 'edited', data: { text: 'v2' } }] });
    expect((await lab.customerA.get(`/templates/${mine.id}`)).body.name).toBe('Reseller edited');
    expect((await lab.reseller.delete(`/templates/${mine.id}`)).status).toBe(204);
    expectProblem(await lab.customerA.get(`/templates/${mine.id}`), 404, 'not_found');
    expect(await stored()).toEqual([]);
  });
});

describe('a definition is validated before it is stored', () => {
  const base = () => definition(`Checked ${Math.random().toString(36).slice(2)}`);

  it('refuses a {{variable}} it does not declare', async () => {
    const errors = validationErrors(await lab.reseller.post('/templates', { ...base(), records: [{ type: 'A', name: 'www', data: { address: '{{ip}}' } }] }));
    expect(errors).toEqual([expect.objectContaining({ code: 'undeclared_variable', detail: expect.stringContaining('{{ip}}') })]);
  });

  it('refuses a variable declared twice', async () => {
    const body = {
      ...base(),
      variables: [
        { name: 'label', kind: 'string' },
        { name: 'label', kind: 'hostname' },
      ],
    };
    expect(validationErrors(await lab.reseller.post('/templates', body))).toEqual([
      expect.objectContaining({ pointer: '/variables/1/name', code: 'duplicate' }),
    ]);
  });

  it('refuses records that cannot render into valid records, each with its pointer', async () => {
    const body = {
      ...base(),
      variables: [
        { name: 'host', kind: 'hostname', required: true },
        { name: 'ip', kind: 'ipv4', required: true },
      ],
      records: [
        { type: 'A', name: 'ok', data: { address: '{{ip}}' } },
        { type: 'BOGUS', name: 'www', data: { text: 'x' } },
        // A hostname where an IPv4 address belongs: the sample hostname is not an address.
        { type: 'A', name: 'www', data: { address: '{{host}}' } },
        { type: 'SRV', name: 'www', data: { priority: 10, weight: 1, port: 443, target: '{{host}}' } },
      ],
    };
    const errors = validationErrors(await lab.reseller.post('/templates', body));
    const pointers = errors.map((e) => e.pointer);
    expect(pointers).toContain('/records/1/type');
    expect(pointers).toContain('/records/2/data/address');
    expect(pointers).toContain('/records/3/name');
    expect(pointers.some((p) => p.startsWith('/records/0'))).toBe(false);
    expect((await lab.customerA.get('/templates')).body.data.map((t: any) => t.name)).not.toContain(body.name);
  });

  it('checks a PATCH the same way', async () => {
    const t = await defineTemplate(lab.reseller, base());
    expect(
      validationErrors(await lab.reseller.patch(`/templates/${t.id}`, { records: [{ type: 'MX', name: '@', data: { preference: 10, exchange: '{{nope}}' } }] }))
        .length,
    ).toBe(1);
    expect((await lab.reseller.get(`/templates/${t.id}`)).body.records).toEqual(t.records);
  });

  it('keeps names unique per tenant (409), not across tenants', async () => {
    const name = `Unique ${Math.random().toString(36).slice(2)}`;
    await defineTemplate(lab.reseller, definition(name));
    expectProblem(await lab.reseller.post('/templates', definition(name)), 409, 'conflict');
    await defineTemplate(reseller2, definition(name));
    await defineTemplate(lab.platform, definition(name));
  });
});

describe('apply-template', () => {
  it('checks the variables: required, kind, unknown — each at /variables/<name>, nothing stored', async () => {
    const zone = 'vars.test';
    await createZone(lab.customerA, zone);
    const before = await changeSets(lab.customerA, zone);
    const missing = validationErrors(await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: {} }));
    expect(missing).toEqual([expect.objectContaining({ pointer: '/variables/ipv4', code: 'required' })]);
    const wrongKind = validationErrors(await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: 'x' } }));
    expect(wrongKind).toEqual([expect.objectContaining({ pointer: '/variables/ipv4', code: 'invalid_ipv4' })]);
    const badV6 = validationErrors(await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.1', ipv6: 'zz' } }));
    expect(badV6).toEqual([expect.objectContaining({ pointer: '/variables/ipv6' })]);
    const unknown = validationErrors(await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.1', ip4: '192.0.2.1' } }));
    expect(unknown).toEqual([expect.objectContaining({ pointer: '/variables/ip4', code: 'unknown_variable' })]);
    const noTemplate = validationErrors(await apply(lab.customerA, zone, { template_id: tpl.reseller2.id, variables: {} }));
    expect(noTemplate).toEqual([expect.objectContaining({ pointer: '/template_id' })]);
    expect(await records(lab.customerA, zone)).toEqual([]);
    expect(await changeSets(lab.customerA, zone)).toEqual(before);
  });

  it('leaves out the records of an optional variable not given (web hosting without IPv6: no AAAA)', async () => {
    const zone = 'no-ipv6.test';
    await createZone(lab.customerA, zone);
    const res = await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.10' } });
    expect(res.status, res.text).toBe(201);
    expect(rows(await records(lab.customerA, zone))).toEqual(['@ A 192.0.2.10', 'www A 192.0.2.10']);

    const both = 'with-ipv6.test';
    await createZone(lab.customerA, both);
    expect((await apply(lab.customerA, both, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.11', ipv6: '2001:db8::11' } })).status).toBe(201);
    expect(rows(await records(lab.customerA, both))).toEqual(['@ A 192.0.2.11', '@ AAAA 2001:db8::11', 'www A 192.0.2.11', 'www AAAA 2001:db8::11']);
  });

  it('applies an ancestor’s template (the reseller’s, for its customer) with its defaults', async () => {
    const zone = 'ancestor-template.test';
    await createZone(lab.customerA, zone);
    expect((await apply(lab.customerA, zone, { template_id: tpl.reseller.id })).status).toBe(201);
    expect(rows(await records(lab.customerA, zone))).toEqual(['fixture TXT "Reseller standard"']);
    expect((await apply(lab.customerA, zone, { template_id: tpl.platform.id, variables: { label: 'plat' } })).status).toBe(201);
    expect(rows(await records(lab.customerA, zone))).toContain('plat TXT "Platform standard"');
  });

  it('on_conflict skip leaves existing RRsets of the same name and type alone; replace replaces them', async () => {
    const zone = 'conflicts.test';
    await createZone(lab.customerA, zone);
    const keep = await createRecord(lab.customerA, zone, { type: 'A', name: 'www', data: { address: '198.51.100.1' } });
    await createRecord(lab.customerA, zone, { type: 'A', name: 'www', data: { address: '198.51.100.2' } });
    await createRecord(lab.customerA, zone, { type: 'TXT', name: 'www', data: { text: 'other type stays' } });

    const skip = await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.20' } });
    expect(skip.status, skip.text).toBe(201);
    expect(skip.body.summary).toEqual({ created: 1, updated: 0, deleted: 0 });
    expect(rows(await records(lab.customerA, zone))).toEqual(['@ A 192.0.2.20', 'www A 198.51.100.1', 'www A 198.51.100.2', 'www TXT "other type stays"']);
    expect((await lab.customerA.get(`/zones/${zone}/records/${keep.id}`)).body.publication.changeset_id).toBe(keep.publication.changeset_id);

    const replace = await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.21' }, on_conflict: 'replace' });
    expect(replace.status, replace.text).toBe(201);
    expect(rows(await records(lab.customerA, zone))).toEqual(['@ A 192.0.2.21', 'www A 192.0.2.21', 'www TXT "other type stays"']);
  });

  it('treats a CNAME conflict (either way) as 422 with skip, and removes the conflicting records with replace', async () => {
    const zone = 'cname-rule.test';
    await createZone(lab.customerA, zone);
    // A template record at a name holding a CNAME: web hosting's www A against www CNAME.
    await createRecord(lab.customerA, zone, { type: 'CNAME', name: 'www', data: { target: 'elsewhere.example.net' } });
    // A template CNAME at a name holding an A: Microsoft 365's autodiscover CNAME.
    await createRecord(lab.customerA, zone, { type: 'A', name: 'autodiscover', data: { address: '198.51.100.7' } });
    await createRecord(lab.customerA, zone, { type: 'TXT', name: 'autodiscover', data: { text: 'also in the way' } });
    const before = { records: rows(await records(lab.customerA, zone)), changeSets: await changeSets(lab.customerA, zone) };

    const aOnCname = validationErrors(await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.30' } }));
    expect(aOnCname).toEqual([expect.objectContaining({ code: 'cname_conflict', detail: expect.stringContaining('www') })]);
    const cnameOnA = validationErrors(await apply(lab.customerA, zone, { template_id: 'microsoft-365', on_conflict: 'skip' }));
    expect(cnameOnA).toEqual([expect.objectContaining({ code: 'cname_conflict', detail: expect.stringContaining('autodiscover') })]);
    expect(rows(await records(lab.customerA, zone))).toEqual(before.records);
    expect(await changeSets(lab.customerA, zone)).toEqual(before.changeSets);

    expect((await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.30' }, on_conflict: 'replace' })).status).toBe(201);
    let now = rows(await records(lab.customerA, zone));
    expect(now).toContain('www A 192.0.2.30');
    expect(now.filter((r) => r.startsWith('www '))).toEqual(['www A 192.0.2.30']);

    const m365 = await apply(lab.customerA, zone, { template_id: 'microsoft-365', on_conflict: 'replace' });
    expect(m365.status, m365.text).toBe(201);
    now = rows(await records(lab.customerA, zone));
    expect(now.filter((r) => r.startsWith('autodiscover '))).toEqual(['autodiscover CNAME autodiscover.outlook.com.']);
  });

  it('dry_run answers 200 with the diff and stores nothing', async () => {
    const zone = 'dry.test';
    await createZone(lab.customerA, zone);
    await createRecord(lab.customerA, zone, { type: 'A', name: 'www', data: { address: '198.51.100.9' } });
    const before = {
      records: await records(lab.customerA, zone),
      changeSets: await changeSets(lab.customerA, zone),
      etag: (await lab.customerA.get(`/zones/${zone}`)).headers.get('etag'),
    };
    const res = await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.40' }, on_conflict: 'replace', dry_run: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.dry_run).toBe(true);
    expect(res.headers.get('location')).toBeNull();
    expect(res.body.diff.created.map((r: any) => `${r.name} ${r.type} ${r.content}`).sort()).toEqual(['@ A 192.0.2.40', 'www A 192.0.2.40']);
    expect(res.body.diff.deleted.map((r: any) => `${r.name} ${r.type} ${r.content}`)).toEqual(['www A 198.51.100.9']);
    const after = {
      records: await records(lab.customerA, zone),
      changeSets: await changeSets(lab.customerA, zone),
      etag: (await lab.customerA.get(`/zones/${zone}`)).headers.get('etag'),
    };
    expect(after).toEqual(before);
  });

  it('stores one change set of kind template (201, Location), and replays it for the same Idempotency-Key', async () => {
    const zone = 'applied.test';
    await createZone(lab.customerA, zone);
    const before = (await changeSets(lab.customerA, zone)).length;
    const body = { template_id: 'mail', variables: { mail_host: 'mx.provider.example' } };
    const first = await apply(lab.customerA, zone, body, { 'Idempotency-Key': 'apply-mail-1' });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ kind: 'template', state: 'pending', zone, items: 3, summary: { created: 3, updated: 0, deleted: 0 } });
    expect(first.headers.get('location')).toBe(`/api/v1/zones/${zone}/changesets/${first.body.id}`);
    const got = await lab.customerA.get(first.headers.get('location')!);
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ id: first.body.id, kind: 'template', items: 3 });
    const stored = await records(lab.customerA, zone);
    expect(rows(stored)).toEqual(['@ MX 10 mx.provider.example.', '@ TXT "v=spf1 mx -all"', '_dmarc TXT "v=DMARC1; p=none"']);
    expect(new Set(stored.map((r) => r.publication.changeset_id))).toEqual(new Set([first.body.id]));

    const again = await apply(lab.customerA, zone, body, { 'Idempotency-Key': 'apply-mail-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect((await changeSets(lab.customerA, zone)).length).toBe(before + 1);
    expect(await records(lab.customerA, zone)).toEqual(stored);
    // The same key with another body is a misuse, not a replay.
    expect((await apply(lab.customerA, zone, { ...body, on_conflict: 'replace' }, { 'Idempotency-Key': 'apply-mail-1' })).status).toBeGreaterThanOrEqual(400);
  });

  it('renders Microsoft 365: MX <zone-dashed>.mail.protection.outlook.com, SPF, CNAMEs and both SRV records', async () => {
    const zone = 'contoso-shop.test';
    await createZone(lab.customerA, zone);
    const res = await apply(lab.customerA, zone, { template_id: 'microsoft-365' });
    expect(res.status, res.text).toBe(201);
    const got = await records(lab.customerA, zone);
    expect(rows(got)).toEqual(
      [
        '@ MX 0 contoso-shop-test.mail.protection.outlook.com.',
        '@ TXT "v=spf1 include:spf.protection.outlook.com -all"',
        '_sip._tls SRV 100 1 443 sipdir.online.lync.com.',
        '_sipfederationtls._tcp SRV 100 1 5061 sipfed.online.lync.com.',
        'autodiscover CNAME autodiscover.outlook.com.',
        'lyncdiscover CNAME webdir.online.lync.com.',
        'sip CNAME sipdir.online.lync.com.',
      ].sort(),
    );
    const fed = got.find((r) => r.name === '_sipfederationtls._tcp')!;
    expect(fed.data).toMatchObject({ priority: 100, weight: 1, port: 5061 });
    // The MX host can be given instead.
    const other = 'contoso-other.test';
    await createZone(lab.customerA, other);
    expect((await apply(lab.customerA, other, { template_id: 'microsoft-365', variables: { mx_host: 'custom.mail.protection.outlook.com' } })).status).toBe(
      201,
    );
    expect(rows(await records(lab.customerA, other))).toContain('@ MX 0 custom.mail.protection.outlook.com.');
  });

  it('cannot reach another tenant’s zone (404) nor use another subtree’s template (422 /template_id)', async () => {
    const zone = 'someone-elses.test';
    await createZone(customerC, zone);
    expectProblem(await apply(lab.customerA, zone, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.1' } }), 404, 'not_found');
    expect(validationErrors(await apply(customerC, zone, { template_id: tpl.reseller.id }))).toEqual([expect.objectContaining({ pointer: '/template_id' })]);
    expect((await apply(customerC, zone, { template_id: tpl.reseller2.id })).status).toBe(201);
    expect(rows(await records(customerC, zone))).toEqual(['fixture TXT "Reseller 2 standard"']);
  });
});

describe('POST /zones with a template', () => {
  it('applies it in the creation change set: one change set, kind zone_create', async () => {
    const zone = 'born-with-template.test';
    const created = await createZone(lab.customerA, zone, {
      template: { template_id: 'web-hosting', variables: { ipv4: '192.0.2.50' } },
      records: [{ type: 'TXT', name: '@', data: { text: 'initial' } }],
    });
    expect(created.name).toBe(zone);
    const sets = await changeSets(lab.customerA, zone);
    expect(sets.map((c) => c.kind)).toEqual(['zone_create']);
    const got = await records(lab.customerA, zone);
    expect(rows(got)).toEqual(['@ A 192.0.2.50', '@ TXT "initial"', 'www A 192.0.2.50']);
    expect(new Set(got.map((r) => r.publication.changeset_id))).toEqual(new Set([sets[0].id]));
  });

  it('rejects the whole creation when the template fails: no zone', async () => {
    for (const [name, template] of [
      ['bad-template-var.test', { template_id: 'web-hosting', variables: { ipv4: 'x' } }],
      ['bad-template-missing.test', { template_id: 'web-hosting', variables: {} }],
      ['bad-template-unknown.test', { template_id: tpl.reseller2.id }],
      // The template's www A against an initial www CNAME in the same creation.
      ['bad-template-cname.test', { template_id: 'web-hosting', variables: { ipv4: '192.0.2.51' } }],
    ] as const) {
      const extra = name === 'bad-template-cname.test' ? { records: [{ type: 'CNAME', name: 'www', data: { target: 'x.example.net' } }] } : {};
      const res = await lab.customerA.post('/zones', { name, template, ...extra });
      expect(validationErrors(res).length, name).toBeGreaterThan(0);
      expectProblem(await lab.customerA.get(`/zones/${name}`), 404, 'not_found');
      expect((await lab.sql.query('SELECT count(*)::int AS n FROM zones WHERE name = $1', [name])).rows[0].n, name).toBe(0);
    }
  });
});

describe('feature gates', () => {
  const featuresOf = async (api: ApiClient, id: string) => (await api.get(`/tenants/${id}`)).body.features as string[];
  const withoutFeature = async (parent: ApiClient, id: string, feature: string) => {
    const current = await featuresOf(parent, id);
    expect(current).toContain(feature);
    const res = await parent.patch(`/tenants/${id}`, { features: current.filter((f) => f !== feature) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.features).not.toContain(feature);
  };

  it('templates: a customer without it gets 403 feature_disabled on apply (also at zone creation); listing still works', async () => {
    const c = await newCustomer(lab, 'No templates');
    await createZone(c.api, 'gated-templates.test');
    expect((await apply(c.api, 'gated-templates.test', { template_id: 'web-hosting', variables: { ipv4: '192.0.2.60' }, dry_run: true })).status).toBe(200);
    await withoutFeature(lab.reseller, c.id, 'templates');

    expectProblem(await apply(c.api, 'gated-templates.test', { template_id: 'web-hosting', variables: { ipv4: '192.0.2.60' } }), 403, 'feature_disabled');
    expectProblem(
      await apply(c.api, 'gated-templates.test', { template_id: 'web-hosting', variables: { ipv4: '192.0.2.60' }, dry_run: true }),
      403,
      'feature_disabled',
    );
    expectProblem(await c.api.post('/templates', definition('Gated')), 403, 'feature_disabled');
    expect(await records(c.api, 'gated-templates.test')).toEqual([]);
    expectProblem(
      await c.api.post('/zones', { name: 'gated-born.test', template: { template_id: 'web-hosting', variables: { ipv4: '192.0.2.61' } } }),
      403,
      'feature_disabled',
    );
    expectProblem(await c.api.get('/zones/gated-born.test'), 404, 'not_found');
    // Everything else goes on: reading templates, zones without a template, record writes.
    const list = await c.api.get('/templates');
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((t: any) => t.id).slice(0, 4)).toEqual(BUILTINS);
    expect((await c.api.get('/templates/web-hosting')).status).toBe(200);
    await createZone(c.api, 'gated-plain.test');
    await createRecord(c.api, 'gated-plain.test', { type: 'A', name: 'www', data: { address: '192.0.2.62' } });
    // The reseller itself keeps the feature: the gate is per acting tenant.
    const own = await defineTemplate(lab.reseller, definition('Still allowed'));
    expect((await lab.reseller.delete(`/templates/${own.id}`)).status).toBe(204);
    // A sibling customer is not affected.
    expect((await apply(lab.customerB, await createZone(lab.customerB, 'sibling-ok.test').then((z) => z.name), { template_id: tpl.reseller.id })).status).toBe(
      201,
    );
  });

  it('templates: when the reseller lacks it, the reseller and all its customers are blocked', async () => {
    const r = await createTenant({ type: 'reseller', name: 'Reseller without templates' });
    const rApi = await tokenFor(r);
    const cid = (await rApi.post('/tenants', { type: 'customer', name: 'Its customer', ...ROOMY })).body.id as string;
    const cApi = rApi.with({ 'X-Act-As-Customer': cid });
    const t = await defineTemplate(rApi, definition('Before the gate'));
    await createZone(cApi, 'gated-by-reseller.test');
    expect(await featuresOf(cApi, cid)).toContain('templates');
    await withoutFeature(lab.platform, r, 'templates');

    // The customer's own features still list it, yet its reseller's lack of it blocks it.
    expect(await featuresOf(rApi, cid)).toContain('templates');
    expectProblem(await apply(cApi, 'gated-by-reseller.test', { template_id: 'web-hosting', variables: { ipv4: '192.0.2.70' } }), 403, 'feature_disabled');
    expectProblem(await rApi.post('/templates', definition('After the gate')), 403, 'feature_disabled');
    expectProblem(await rApi.patch(`/templates/${t.id}`, { name: 'After the gate' }), 403, 'feature_disabled');
    expectProblem(await rApi.delete(`/templates/${t.id}`), 403, 'feature_disabled');
    expect((await cApi.get('/templates')).body.data.map((x: any) => x.id)).toContain(t.id);
    expect((await rApi.get(`/templates/${t.id}`)).body.name).toBe('Before the gate');
  });

  it('zone_import: a customer without it, or below a reseller without it, gets 403 feature_disabled on import', async () => {
    const zonefile = 'www 600 IN A 192.0.2.80\n';
    const c = await newCustomer(lab, 'No import');
    await createZone(c.api, 'gated-import.test');
    const ok = await c.api.post('/zones/gated-import.test/import', { zonefile, dry_run: true });
    expect(ok.status, ok.text).toBe(200);
    await withoutFeature(lab.reseller, c.id, 'zone_import');
    expectProblem(await c.api.post('/zones/gated-import.test/import', { zonefile }), 403, 'feature_disabled');
    expectProblem(await c.api.post('/zones/gated-import.test/import', { zonefile, dry_run: true }), 403, 'feature_disabled');
    expect(await records(c.api, 'gated-import.test')).toEqual([]);
    expect((await c.api.get('/zones/gated-import.test/export')).status).toBe(200);
    // Templates are a separate feature.
    expect((await apply(c.api, 'gated-import.test', { template_id: 'web-hosting', variables: { ipv4: '192.0.2.81' } })).status).toBe(201);

    const r = await createTenant({ type: 'reseller', name: 'Reseller without import' });
    const rApi = await tokenFor(r);
    const cid = (await rApi.post('/tenants', { type: 'customer', name: 'Its customer', ...ROOMY })).body.id as string;
    const cApi = rApi.with({ 'X-Act-As-Customer': cid });
    await createZone(cApi, 'gated-import-reseller.test');
    await createZone(rApi, 'reseller-own-import.test');
    await withoutFeature(lab.platform, r, 'zone_import');
    expectProblem(await cApi.post('/zones/gated-import-reseller.test/import', { zonefile }), 403, 'feature_disabled');
    expectProblem(await rApi.post('/zones/reseller-own-import.test/import', { zonefile }), 403, 'feature_disabled');
    expect(await records(cApi, 'gated-import-reseller.test')).toEqual([]);
  });
});
