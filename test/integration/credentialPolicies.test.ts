// Credential policies on API tokens, as an ACME setup uses them (docs/credentials.md): a token
// that may write only TXT records at _acme-challenge names of one zone writes exactly those,
// finds its zone, and is refused everything else with 403 credential_policy naming the rule,
// nothing written and the refusal in the audit log; source addresses and expiry on every
// request; zones created and deleted only as the policy allows; no wider credential minted.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { issueToken } from '../helpers/credentials.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
let db: pg.Client;
let owner: ApiClient;
let tenantId: string;
let zoneA: string;
let zoneB: string;
let acme: ApiClient;
let acmeTokenId: string;
const stamp = Date.now().toString(36);
let n = 0;
const zoneName = (label: string) => `${label}-${stamp}-${++n}.example`;

const ACME_SCOPES = ['zones:read', 'zones:write', 'records:read', 'records:write', 'dnssec:write', 'tenant:read'];

beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api' } });
  db = new pg.Client({ connectionString: lab.databaseUrl });
  await db.connect();
  owner = lab.as(lab.tokens.customers[0]!);
  tenantId = (lab.tokens.tenants as unknown as { customers: string[] }).customers[0]!;
  zoneA = zoneName('pol-a');
  zoneB = zoneName('pol-b');
  for (const zone of [zoneA, zoneB]) {
    const res = await owner.post('/zones', { name: zone, records: [{ type: 'A', name: 'www', data: { address: '192.0.2.10' } }] });
    expect(res.status, res.text).toBe(201);
  }
  const issued = await issueToken(owner, tenantId, ACME_SCOPES, 'acme client', {
    policy: { zones: [zoneA], names: ['_acme-challenge.*'], types: ['TXT'] },
  });
  acme = lab.as(issued.token);
  acmeTokenId = issued.id;
});
afterAll(async () => {
  await db?.end();
  await lab?.stop();
});

/** Every row a refused request could have written, as one comparable value. */
async function stored(): Promise<string> {
  const r = await db.query(`SELECT (SELECT count(*) FROM records) AS records, (SELECT count(*) FROM change_sets) AS change_sets,
                                   (SELECT count(*) FROM zones) AS zones, (SELECT max(version) FROM zones) AS version,
                                   (SELECT count(*) FROM api_tokens) AS tokens, (SELECT count(*) FROM tsig_keys) AS keys`);
  return JSON.stringify(r.rows[0]);
}

async function refusalsAudited(): Promise<{ details: Record<string, unknown>; target: { id: string } }[]> {
  const res = await owner.get('/audit-log?action=credential.refused&limit=500');
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The request is refused naming `rule`, stores nothing, and leaves one audit entry saying so. */
async function expectRefused(request: () => Promise<ApiResponse>, rule: string, tokenId = acmeTokenId): Promise<ApiResponse> {
  const before = await stored();
  const audited = (await refusalsAudited()).length;
  const res = await request();
  expect(res.status, res.text).toBe(403);
  expect(res.body.code).toBe('credential_policy');
  expect(res.body.rule).toBe(rule);
  expect(res.body.detail).toContain(`rule "${rule}"`);
  expect(await stored(), 'nothing stored').toBe(before);
  const entries = await refusalsAudited();
  expect(entries.length, 'one audit entry').toBe(audited + 1);
  expect(entries[0]).toMatchObject({ target: { type: 'credential', id: tokenId }, details: { rule } });
  return res;
}

const txt = (name: string, text = 'token-value') => ({ type: 'TXT', name, ttl: 120, data: { text } });

describe('a token for DNS-01: TXT at _acme-challenge.* of one zone', () => {
  it('writes and deletes its challenge records', async () => {
    for (const name of ['_acme-challenge.www', '_acme-challenge']) {
      const res = await acme.post(`/zones/${zoneA}/records`, txt(name));
      expect(res.status, res.text).toBe(201);
      const gone = await acme.delete(`/zones/${zoneA}/records/${res.body.id}`);
      expect(gone.status, gone.text).toBe(202);
    }
    const set = await acme.post(`/zones/${zoneA}/changesets`, {
      changes: [{ op: 'replace_rrset', name: '_acme-challenge.shop', type: 'TXT', ttl: 120, records: [{ text: 'a' }, { text: 'b' }] }],
    });
    expect(set.status, set.text).toBe(201);
  });

  it('finds its zone and only it', async () => {
    const list = await acme.get('/zones');
    expect(list.status).toBe(200);
    expect(list.body.data.map((z: { name: string }) => z.name)).toEqual([zoneA]);
    expect(list.body.pagination.total).toBe(1);
    expect((await acme.get(`/zones/${zoneA}`)).status).toBe(200);
    expect((await acme.get(`/zones/${zoneA}/records?name=www`)).body.data).toHaveLength(1);
    expect((await acme.get('/me')).body.token.policy).toEqual({ zones: [zoneA], names: ['_acme-challenge.*'], types: ['TXT'] });
  });

  it('is refused another type, another name, another zone', async () => {
    await expectRefused(() => acme.post(`/zones/${zoneA}/records`, { type: 'A', name: '_acme-challenge.www', data: { address: '192.0.2.1' } }), 'types');
    await expectRefused(() => acme.post(`/zones/${zoneA}/records`, txt('www')), 'names');
    await expectRefused(() => acme.post(`/zones/${zoneA}/records`, txt('x._acme-challenge')), 'names');
    await expectRefused(() => acme.post(`/zones/${zoneB}/records`, txt('_acme-challenge')), 'zones');
  });

  it('reads no other zone, existing or not, and cannot tell which exist', async () => {
    const other = await expectRefused(() => acme.get(`/zones/${zoneB}`), 'zones');
    const missing = await expectRefused(() => acme.get(`/zones/nowhere-${stamp}.example`), 'zones');
    expect(missing.body.detail.replace(`nowhere-${stamp}.example`, zoneB)).toBe(other.body.detail);
    await expectRefused(() => acme.get(`/zones/${zoneB}/records`), 'zones');
    await expectRefused(() => acme.get(`/zones/${zoneB}/export`), 'zones');
  });

  it('refuses a change set as a whole when one item is outside, and a dry run too', async () => {
    const changes = [
      { op: 'create', record: txt('_acme-challenge.ok') },
      { op: 'create', record: txt('_acme-challenge.ok2') },
      { op: 'create', record: { type: 'CNAME', name: 'evil', data: { target: 'attacker.example.' } } },
    ];
    await expectRefused(() => acme.post(`/zones/${zoneA}/changesets`, { changes }), 'names');
    await expectRefused(() => acme.post(`/zones/${zoneA}/changesets`, { changes, dry_run: true }), 'names');
  });

  it('cannot change or delete records outside by id', async () => {
    const www = (await owner.get(`/zones/${zoneA}/records?name=www&type=A`)).body.data[0];
    await expectRefused(() => acme.patch(`/zones/${zoneA}/records/${www.id}`, { ttl: 60 }), 'names');
    await expectRefused(() => acme.delete(`/zones/${zoneA}/records/${www.id}`), 'names');
    await expectRefused(() => acme.post(`/zones/${zoneA}/changesets`, { changes: [{ op: 'delete', id: www.id }] }), 'names');
  });

  it('imports and applies templates only within the policy', async () => {
    await expectRefused(() => acme.post(`/zones/${zoneA}/import`, { zonefile: `www2 300 IN A 192.0.2.5\n` }), 'names');
    await expectRefused(() => acme.post(`/zones/${zoneA}/import`, { zonefile: `_acme-challenge.mail 300 IN TXT "x"\n`, mode: 'replace' }), 'names');
    const ok = await acme.post(`/zones/${zoneA}/import`, { zonefile: `_acme-challenge.mail 300 IN TXT "x"\n` });
    expect(ok.status, ok.text).toBe(201);
    await expectRefused(() => acme.post(`/zones/${zoneA}/apply-template`, { template_id: 'web-hosting', variables: { ipv4: '192.0.2.9' } }), 'names');
  });

  it('cannot write the zone as a whole: settings, DNSSEC, deletion, creation', async () => {
    await expectRefused(() => acme.patch(`/zones/${zoneA}`, { default_ttl: 600 }), 'names');
    await expectRefused(() => acme.post(`/zones/${zoneA}/dnssec/enable`, {}), 'names');
    await expectRefused(() => acme.delete(`/zones/${zoneA}?confirm=${zoneA}`), 'names');
    await expectRefused(() => acme.post('/zones', { name: zoneName('pol-new') }), 'zones');
  });

  it('stores the refusal under an Idempotency-Key and audits it once', async () => {
    const key = `refused-${stamp}`;
    const body = txt('www');
    await expectRefused(() => acme.post(`/zones/${zoneA}/records`, body, { headers: { 'Idempotency-Key': key } }), 'names');
    const audited = (await refusalsAudited()).length;
    const replay = await acme.post(`/zones/${zoneA}/records`, body, { headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(403);
    expect(replay.body.rule).toBe('names');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await refusalsAudited()).length).toBe(audited);
  });

  it('says why in German', async () => {
    const res = await acme.with({ 'Accept-Language': 'de' }).post(`/zones/${zoneA}/records`, txt('www'));
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe(
      `Die Richtlinie dieses Zugangs lässt die Anfrage nicht zu (Regel "names"). Der Name www.${zoneA} passt zu keinem seiner "names".`,
    );
  });
});

describe('zones of a zones-only policy', () => {
  it('may be created, changed and deleted; no other zone', async () => {
    const mine = zoneName('pol-own');
    const token = lab.as((await issueToken(owner, tenantId, ACME_SCOPES, 'zone admin', { policy: { zones: [mine, zoneA] } })).token);
    const made = await token.post('/zones', { name: mine, records: [{ type: 'A', name: 'www', data: { address: '192.0.2.7' } }] });
    expect(made.status, made.text).toBe(201);
    expect((await token.get('/zones')).body.data.map((z: { name: string }) => z.name).sort()).toEqual([mine, zoneA].sort());
    expect((await token.patch(`/zones/${mine}`, { default_ttl: 900 })).status).toBe(200);
    expect((await token.post(`/zones/${zoneA}/records`, { type: 'A', name: 'any', data: { address: '192.0.2.8' } })).status).toBe(201);
    const res = await token.post('/zones', { name: zoneName('pol-other') });
    expect(res.status).toBe(403);
    expect(res.body.rule).toBe('zones');
    expect((await token.delete(`/zones/${mine}?confirm=${mine}`)).status).toBe(202);
  });
});

describe('source addresses and expiry, on every request', () => {
  it('refuses a token used from outside its source_cidrs (the tests come from 127.0.0.1)', async () => {
    const far = await issueToken(owner, tenantId, ['tenant:read', 'zones:read'], 'far away', { policy: { source_cidrs: ['10.0.0.0/8'] } });
    const near = await issueToken(owner, tenantId, ['tenant:read', 'zones:read'], 'loopback', { policy: { source_cidrs: ['127.0.0.0/8', '::1/128'] } });
    const refused = await expectRefused(() => lab.as(far.token).get('/me'), 'source_cidrs', far.id);
    expect(refused.body.detail).toContain('127.0.0.1');
    await expectRefused(() => lab.as(far.token).get('/zones'), 'source_cidrs', far.id);
    expect((await lab.as(near.token).get('/me')).status).toBe(200);
    expect((await lab.as(near.token).get('/zones')).status).toBe(200);
  });

  it('refuses everything from the policy’s expiry on', async () => {
    const expires = new Date(lab.clock.now().getTime() + 3_600_000);
    const issued = await issueToken(owner, tenantId, ACME_SCOPES, 'short-lived', { policy: { zones: [zoneA], expires_at: expires.toISOString() } });
    const token = lab.as(issued.token);
    expect((await token.get(`/zones/${zoneA}`)).status).toBe(200);
    lab.clock.advance(3_600_000);
    await expectRefused(() => token.get(`/zones/${zoneA}`), 'expired', issued.id);
    await expectRefused(() => token.post(`/zones/${zoneA}/records`, txt('_acme-challenge')), 'expired', issued.id);
  });
});

describe('issuing credentials with a policy', () => {
  it('validates the policy with pointers into the body', async () => {
    const client = (await owner.post(`/tenants/${tenantId}/api-clients`, { name: 'validation' })).body;
    const res = await owner.post(`/api-clients/${client.id}/tokens`, {
      name: 'bad',
      scopes: ['records:write'],
      policy: {
        zones: ['*.x.example'],
        names: ['a.*.b.example', 'ok.example'],
        types: ['TXT', 'RRSIG'],
        source_cidrs: ['10.0.0.1/8'],
        expires_at: '2000-01-01T00:00:00Z',
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
      '/policy/zones/0',
      '/policy/names/0',
      '/policy/types/1',
      '/policy/source_cidrs/0',
      '/policy/expires_at',
    ]);
    const empty = await owner.post(`/api-clients/${client.id}/tokens`, { name: 'empty list', scopes: ['records:write'], policy: { zones: [] } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].pointer).toBe('/policy/zones');
  });

  it('shows the token’s policy, and none for a token without', async () => {
    const tokens = (await owner.get(`/tokens/${acmeTokenId}`)).body;
    expect(tokens.policy).toEqual({ zones: [zoneA], names: ['_acme-challenge.*'], types: ['TXT'] });
    const plain = await issueToken(owner, tenantId, ['tenant:read'], 'plain');
    expect((await owner.get(`/tokens/${plain.id}`)).body.policy).toBeNull();
  });

  it('lets a restricted token issue only credentials within its own policy', async () => {
    const policy = { zones: [zoneA], names: ['_acme-challenge.*'], types: ['TXT'] };
    const issued = await issueToken(owner, tenantId, [...ACME_SCOPES, 'tenants:write', 'tsig:write'], 'restricted admin', { policy });
    const admin = lab.as(issued.token);
    const client = (await owner.post(`/tenants/${tenantId}/api-clients`, { name: 'minted' })).body;
    const wider = await expectRefused(() => admin.post(`/api-clients/${client.id}/tokens`, { name: 'wider', scopes: ['records:write'] }), 'zones', issued.id);
    expect(wider.body.detail).toContain('allows more');
    await expectRefused(
      () => admin.post(`/api-clients/${client.id}/tokens`, { name: 'wider', scopes: ['records:write'], policy: { ...policy, names: [`*.${zoneA}`] } }),
      'names',
      issued.id,
    );
    const narrower = await admin.post(`/api-clients/${client.id}/tokens`, {
      name: 'narrower',
      scopes: ['records:write'],
      policy: { ...policy, names: [`_acme-challenge.www.${zoneA}`] },
    });
    expect(narrower.status, narrower.text).toBe(201);

    await expectRefused(() => admin.post('/tsig-keys', { name: `wide-${stamp}.example`, policy: { zones: [zoneA] } }), 'names', issued.id);
    const key = await admin.post('/tsig-keys', { name: `narrow-${stamp}.example`, policy });
    expect(key.status, key.text).toBe(201);
    await expectRefused(() => admin.patch(`/tsig-keys/${key.body.id}`, { policy: null }), 'zones', issued.id);
  });
});
