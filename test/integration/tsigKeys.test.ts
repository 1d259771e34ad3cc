// TSIG keys as a panel and an ACME setup use them (docs/credentials.md), through the real HTTP
// server and PostgreSQL: created with a secret shown once, listed and read without it, rotated,
// given a policy and deleted; names unique across every tenant; the secret sealed at rest and
// decrypted only for the nameservers' list; audited without the secret; every change announced
// on tsig_keys_changed after its commit.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TSIG_KEYS_CHANNEL } from '../../src/db/channels.js';
import { MAX_TSIG_KEYS_PER_TENANT, TSIG_SECRET_OCTETS } from '../../src/domain/tsigKeys.js';
import { loadTenantTsigKeys } from '../../src/services/tsigKeys.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { issueToken } from '../helpers/credentials.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const DEPLOYMENT_KEY = 'transfer.provider.example';

let lab: TestService;
let db: pg.Client;
let reseller: ApiClient;
let customerA: ApiClient;
let customerB: ApiClient;
let ids: { reseller: string; customers: string[] };
let n = 0;
const keyName = (label = 'key') => `${label}-${Date.now().toString(36)}-${++n}.example.test`;

beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api', DNS_TSIG_KEYS: `${DEPLOYMENT_KEY}:${Buffer.alloc(32, 7).toString('base64')}` } });
  db = new pg.Client({ connectionString: lab.databaseUrl });
  await db.connect();
  reseller = lab.as(lab.tokens.reseller);
  customerA = lab.as(lab.tokens.customers[0]!);
  customerB = lab.as(lab.tokens.customers[1]!);
  ids = lab.tokens.tenants as unknown as { reseller: string; customers: string[] };
});
afterAll(async () => {
  await db?.end();
  await lab?.stop();
});

const created = async (api: ApiClient, body: Record<string, unknown>) => {
  const res = await api.post('/tsig-keys', body);
  expect(res.status, res.text).toBe(201);
  return res.body;
};

describe('the life of a key', () => {
  it('shows the secret on creation only, with the algorithm’s length, and lists and reads the key without it', async () => {
    const name = keyName('certbot');
    const key = await created(customerA, { name: `${name.toUpperCase()}.` });
    expect(key).toMatchObject({ name, algorithm: 'hmac-sha256', policy: null, tenant_id: ids.customers[0], rotated_at: null });
    expect(key.id).toMatch(/^tsk_[a-z2-7]+$/);
    expect(Buffer.from(key.secret, 'base64')).toHaveLength(32);

    const read = await customerA.get(`/tsig-keys/${key.id}`);
    expect(read.status).toBe(200);
    const { secret: _secret, ...withoutSecret } = key;
    expect(read.body).toEqual(withoutSecret);
    const list = await customerA.get('/tsig-keys?limit=500');
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(key.id);
    expect(list.body.data.every((k: object) => !('secret' in k))).toBe(true);
    // The reseller sees its customer's key; the other customer does not.
    expect((await reseller.get(`/tsig-keys/${key.id}`)).status).toBe(200);
    expect((await customerB.get(`/tsig-keys/${key.id}`)).status).toBe(404);
  });

  it('makes secrets as long as each algorithm’s hash', async () => {
    for (const [algorithm, octets] of Object.entries(TSIG_SECRET_OCTETS)) {
      const key = await created(customerA, { name: keyName(algorithm), algorithm });
      expect(key.algorithm).toBe(algorithm);
      expect(Buffer.from(key.secret, 'base64'), algorithm).toHaveLength(octets);
    }
  });

  it('rotates: a new secret shown once, same name and algorithm', async () => {
    const key = await created(customerA, { name: keyName('lego'), algorithm: 'hmac-sha1' });
    lab.clock.advance(60_000);
    const rotated = await customerA.post(`/tsig-keys/${key.id}/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toMatchObject({ id: key.id, name: key.name, algorithm: 'hmac-sha1', rotated_at: lab.clock.now().toISOString() });
    expect(rotated.body.secret).not.toBe(key.secret);
    expect(Buffer.from(rotated.body.secret, 'base64')).toHaveLength(20);
    const loaded = (await loadTenantTsigKeys(lab.service.services.db, lab.service.services.dnssec.kek)).find((k) => k.id === key.id)!;
    expect(loaded.secret.toString('base64')).toBe(rotated.body.secret);
  });

  it('deletes, and the name is free again', async () => {
    const key = await created(customerA, { name: keyName('gone') });
    const res = await customerA.delete(`/tsig-keys/${key.id}`);
    expect(res.status).toBe(204);
    expect((await customerA.get(`/tsig-keys/${key.id}`)).status).toBe(404);
    expect((await customerA.delete(`/tsig-keys/${key.id}`)).status).toBe(404);
    await created(customerB, { name: key.name });
  });

  it('belongs to the customer acted for', async () => {
    const key = await reseller.with({ 'X-Act-As-Customer': ids.customers[1]! }).post('/tsig-keys', { name: keyName('acted') });
    expect(key.status, key.text).toBe(201);
    expect(key.body.tenant_id).toBe(ids.customers[1]);
    expect((await customerB.get(`/tsig-keys/${key.body.id}`)).status).toBe(200);
  });
});

describe('names', () => {
  it('are unique across every tenant and the deployment’s own keys (409 conflict naming the name)', async () => {
    const name = keyName('shared');
    await created(customerA, { name });
    for (const [api, taken] of [
      [customerB, name],
      [customerA, name.toUpperCase()],
      [reseller, `${name}.`],
      [customerB, DEPLOYMENT_KEY],
    ] as const) {
      const res = await api.post('/tsig-keys', { name: taken });
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('conflict');
      expect(res.body.detail).toContain(taken.toLowerCase().replace(/\.$/, ''));
    }
  });

  it('are DNS names', async () => {
    for (const [name, code] of [
      ['*.example.test', 'invalid_wildcard'],
      ['bad..name', 'empty_label'],
      ['-bad.example.test', 'invalid_hyphen'],
      [`${'a'.repeat(64)}.test`, 'label_too_long'],
      ['with space.test', 'invalid_character'],
    ]) {
      const res = await customerA.post('/tsig-keys', { name });
      expect(res.status, name).toBe(422);
      expect(res.body.errors, name).toEqual([expect.objectContaining({ pointer: '/name', code })]);
    }
    const res = await customerA.post('/tsig-keys', { name: keyName(), algorithm: 'hmac-sha3' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/algorithm');
  });
});

describe('secrets at rest', () => {
  it('are sealed in the row and decrypt only with the key-encryption key', async () => {
    const key = await created(customerA, { name: keyName('sealed') });
    const plain = Buffer.from(key.secret, 'base64');
    const row = (await db.query('SELECT secret FROM tsig_keys WHERE id = $1', [key.id])).rows[0].secret as Buffer;
    expect(row.includes(plain)).toBe(false);
    expect(row.toString('latin1')).not.toContain(key.secret);
    expect(row.length).toBeGreaterThan(plain.length);
    const loaded = (await loadTenantTsigKeys(lab.service.services.db, lab.service.services.dnssec.kek)).find((k) => k.id === key.id);
    expect(loaded).toEqual({ id: key.id, tenantId: ids.customers[0], name: key.name, algorithm: 'hmac-sha256', secret: plain, policy: null });
    await expect(loadTenantTsigKeys(lab.service.services.db, Buffer.alloc(32, 1))).rejects.toThrow();
  });

  it('never reach the audit log or the events', async () => {
    const key = await created(customerA, { name: keyName('audited') });
    const rotated = (await customerA.post(`/tsig-keys/${key.id}/rotate`)).body;
    expect((await customerA.delete(`/tsig-keys/${key.id}`)).status).toBe(204);
    const log = await customerA.get(`/audit-log?target=${key.id}&limit=500`);
    expect(log.body.data.map((e: { action: string }) => e.action).sort()).toEqual(['tsig_key.created', 'tsig_key.deleted', 'tsig_key.rotated']);
    expect(log.body.data.every((e: { details: { name: string } }) => e.details.name === key.name)).toBe(true);
    for (const secret of [key.secret, rotated.secret]) {
      const found = await db.query(
        `SELECT (SELECT count(*) FROM audit_log WHERE details::text LIKE $1) + (SELECT count(*) FROM events WHERE payload::text LIKE $1) AS n`,
        [`%${secret}%`],
      );
      expect(Number(found.rows[0].n)).toBe(0);
    }
  });
});

describe('the nameservers’ reload signal', () => {
  it('is sent on tsig_keys_changed after each committed change, with the key’s id', async () => {
    const listener = new pg.Client({ connectionString: lab.databaseUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => m.channel === TSIG_KEYS_CHANNEL && heard.push(m.payload!));
    await listener.query(`LISTEN ${TSIG_KEYS_CHANNEL}`);
    try {
      const key = await created(customerA, { name: keyName('notified') });
      await customerA.post(`/tsig-keys/${key.id}/rotate`);
      await customerA.patch(`/tsig-keys/${key.id}`, { policy: { types: ['TXT'] } });
      await customerA.delete(`/tsig-keys/${key.id}`);
      // A refused creation (a taken name) commits nothing and says nothing.
      const first = await created(customerA, { name: keyName('first') });
      expect((await customerB.post('/tsig-keys', { name: first.name })).status).toBe(409);
      await listener.query('SELECT 1');
      expect(heard).toEqual([key.id, key.id, key.id, key.id, first.id]);
    } finally {
      await listener.end();
    }
  });
});

describe('policies on keys', () => {
  it('are validated, stored normalised, replaced and removed', async () => {
    const bad = await customerA.post('/tsig-keys', { name: keyName(), policy: { names: ['a.*.b'], types: ['SOA'], extra: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/policy/extra']);
    const badValues = await customerA.post('/tsig-keys', { name: keyName(), policy: { names: ['a.*.b'], types: ['SOA'] } });
    expect(badValues.status).toBe(422);
    expect(badValues.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([
      ['/policy/names/0', 'invalid_wildcard'],
      ['/policy/types/0', 'unknown_type'],
    ]);

    const key = await created(customerA, {
      name: keyName('acme'),
      algorithm: 'hmac-md5',
      policy: { zones: ['A.Example.'], names: ['_ACME-challenge.*'], types: ['txt'], source_cidrs: ['192.0.2.0/24'] },
    });
    const policy = { zones: ['a.example'], names: ['_acme-challenge.*'], types: ['TXT'], source_cidrs: ['192.0.2.0/24'] };
    expect(key.policy).toEqual(policy);
    expect((await customerA.get(`/tsig-keys/${key.id}`)).body.policy).toEqual(policy);
    const loaded = (await loadTenantTsigKeys(lab.service.services.db, lab.service.services.dnssec.kek)).find((k) => k.id === key.id);
    expect(loaded?.policy).toEqual(policy);

    const changed = await customerA.patch(`/tsig-keys/${key.id}`, { policy: { zones: ['a.example'] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.policy).toEqual({ zones: ['a.example'] });
    const removed = await customerA.patch(`/tsig-keys/${key.id}`, { policy: null });
    expect(removed.body.policy).toBeNull();
  });
});

describe('scopes and limits', () => {
  it('reads with tsig:read, writes with tsig:write and records:write', async () => {
    const readOnly = lab.as((await issueToken(customerA, ids.customers[0]!, ['tsig:read'], 'reader')).token);
    const noRecords = lab.as((await issueToken(customerA, ids.customers[0]!, ['tsig:read', 'tsig:write'], 'no records')).token);
    expect((await readOnly.get('/tsig-keys')).status).toBe(200);
    const refused = await readOnly.post('/tsig-keys', { name: keyName() });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    const minting = await noRecords.post('/tsig-keys', { name: keyName() });
    expect(minting.status).toBe(403);
    expect(minting.body.detail).toContain('records:write');
  });

  it(`holds at most ${MAX_TSIG_KEYS_PER_TENANT} keys per tenant (409 quota_exceeded)`, async () => {
    const tenant = ids.customers[1]!;
    const have = Number((await db.query('SELECT count(*) AS n FROM tsig_keys WHERE tenant_id = $1', [tenant])).rows[0].n);
    // Fill up to one below the limit directly (sealed secrets are not looked at), then through the API.
    await db.query(
      `INSERT INTO tsig_keys (id, tenant_id, name, algorithm, secret, created_at, updated_at)
       SELECT 'tsk_fill' || g, $1, 'fill-' || g || '.quota.example.test', 'hmac-sha256', '\\x00', now(), now() FROM generate_series(1, $2::int) g`,
      [tenant, MAX_TSIG_KEYS_PER_TENANT - 1 - have],
    );
    await created(customerB, { name: keyName('last') });
    const over = await customerB.post('/tsig-keys', { name: keyName('over') });
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('quota_exceeded');
    await db.query(`DELETE FROM tsig_keys WHERE id LIKE 'tsk_fill%'`);
  });
});
