// Errors (spec "Errors"): RFC 7807 problem documents with a stable `code`, localised `title` and
// `detail` with Content-Language, and `request_id` equal to X-Request-Id; the status codes of
// authentication, scopes, routing, bodies and validation; ETags with If-None-Match and If-Match.
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let lab: TestService;
beforeAll(async () => {
  lab = await startTestService({ env: { ROLES: 'api' } });
});
afterAll(() => lab?.stop());

let seq = 0;
const unique = (label: string) => `${label} ${process.pid}-${++seq}`;

/** A new API client of the reseller tenant and a token with `scopes`, made through the API. */
async function resellerToken(scopes: string[]): Promise<{ token: string; id: string }> {
  const reseller = lab.as(lab.tokens.reseller);
  const client = await reseller.post(`/tenants/${lab.tokens.tenants.reseller}/api-clients`, { name: unique('client') });
  expect(client.status).toBe(201);
  const token = await reseller.post(`/api-clients/${client.body.id}/tokens`, { name: 'problems test', scopes });
  expect(token.status).toBe(201);
  return { token: token.body.token, id: token.body.id };
}

const anonymous = () => new ApiClient(lab.url, null);

/** A request to any path of the server (ApiClient puts relative paths below /api/v1). */
async function rawRequest(method: string, path: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const res = await fetch(`${lab.url}${path}`, { method, headers });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json') && text;
  return { status: res.status, headers: res.headers, body: json ? JSON.parse(text) : text, text };
}

/** What every problem response has, whatever the status. */
function expectProblem(res: ApiResponse, status: number, code: string, lang: 'en' | 'de' = 'en') {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('content-language')).toBe(lang);
  expect(res.body).toMatchObject({ status, code, type: expect.stringContaining(code) });
  expect(res.body.title).toEqual(expect.any(String));
  expect(res.body.title.length).toBeGreaterThan(0);
  expect(res.body.detail).toEqual(expect.any(String));
  expect(res.body.instance).toEqual(expect.any(String));
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
}

describe('401 unauthenticated', () => {
  it('for a missing Authorization header', async () => {
    const res = await anonymous().get('/me');
    expectProblem(res, 401, 'unauthenticated');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.body.instance).toBe('/api/v1/me');
  });

  it.each([
    ['Basic', 'Basic dXNlcjpwYXNz'],
    ['no token', 'Bearer'],
    ['two tokens', 'Bearer svc_test_a svc_test_b'],
  ])('for a malformed Authorization header (%s)', async (_, header) => {
    const res = await anonymous().get('/me', { headers: { Authorization: header } });
    expectProblem(res, 401, 'unauthenticated');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('for an unknown token, without echoing it', async () => {
    const secret = 'svc_test_thisTokenWasNeverIssuedByTheService0000000';
    const res = await lab.as(secret).get('/me');
    expectProblem(res, 401, 'unauthenticated');
    expect(res.text).not.toContain(secret);
  });

  it('for a revoked token', async () => {
    const { token, id } = await resellerToken(['tenant:read']);
    expect((await lab.as(token).get('/me')).status).toBe(200);
    const revoked = await lab.as(lab.tokens.reseller).delete(`/tokens/${id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const res = await lab.as(token).get('/me');
    expectProblem(res, 401, 'unauthenticated');
    expect(res.body.detail).toMatch(/revoked/);
  });

  it('for an expired token', async () => {
    const reseller = lab.as(lab.tokens.reseller);
    const client = await reseller.post(`/tenants/${lab.tokens.tenants.reseller}/api-clients`, { name: unique('client') });
    const expiresAt = new Date(lab.clock.now().getTime() + 60 * 60 * 1000).toISOString();
    const issued = await reseller.post(`/api-clients/${client.body.id}/tokens`, { name: 'short-lived', scopes: ['tenant:read'], expires_at: expiresAt });
    expect(issued.status).toBe(201);
    expect((await lab.as(issued.body.token).get('/me')).status).toBe(200);
    lab.clock.advance(60 * 60 * 1000);
    const res = await lab.as(issued.body.token).get('/me');
    expectProblem(res, 401, 'unauthenticated');
    expect(res.body.detail).toMatch(/expired/);
  });

  it('for a live token in the sandbox', async () => {
    // A sandbox token with the live prefix, and a made-up live token.
    const live = lab.tokens.reseller.replace(/^svc_test_/, 'svc_live_');
    for (const token of [live, 'svc_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG']) {
      const res = await lab.as(token).get('/me');
      expectProblem(res, 401, 'unauthenticated');
      expect(res.body.detail).toMatch(/sandbox/);
    }
  });
});

describe('403 insufficient_scope', () => {
  it('for a token without tenant:read on GET /me', async () => {
    const { token } = await resellerToken(['tenants:read']);
    const res = await lab.as(token).get('/me');
    expectProblem(res, 403, 'insufficient_scope');
    expect(res.body.detail).toContain('tenant:read');
  });

  it('tenants:write does not imply tenants:read', async () => {
    const { token } = await resellerToken(['tenants:write']);
    const api = lab.as(token);
    const created = await api.post('/tenants', { type: 'customer', name: unique('Write only') });
    expect(created.status).toBe(201);
    const list = await api.get('/tenants');
    expectProblem(list, 403, 'insufficient_scope');
    expect(list.body.detail).toContain('tenants:read');
    expectProblem(await api.get(`/tenants/${created.body.id}`), 403, 'insufficient_scope');
  });
});

describe('routing', () => {
  it.each(['/api/v1/no-such-thing', '/api/v1/tenants/ten_abc/nothing', '/no-such-thing', '/api/v2/me', '/api'])('404 for the unknown path %s', async (path) => {
    const res = await rawRequest('GET', path, { authorization: `Bearer ${lab.tokens.reseller}` });
    expectProblem(res, 404, 'not_found');
    expect(res.body.instance).toBe(path);
  });

  it('404 not_found for an object outside the subtree, the same as for none', async () => {
    const customer = lab.as(lab.tokens.customers[0]);
    const other = await customer.get(`/tenants/${lab.tokens.tenants.customers[1]}`);
    const none = await customer.get('/tenants/ten_nosuchtenant');
    expectProblem(other, 404, 'not_found');
    expectProblem(none, 404, 'not_found');
    expect(other.body.detail).toBe(none.body.detail);
  });

  it.each([
    ['DELETE', '/api/v1/me', ['GET']],
    ['PUT', '/api/v1/tenants', ['GET', 'POST']],
    ['POST', '/api/v1/tenants/ten_abc', ['GET', 'PATCH']],
  ])('405 with Allow for %s %s', async (method, path, allowed) => {
    const res = await lab.as(lab.tokens.reseller).request(method, path);
    expectProblem(res, 405, 'method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    for (const m of allowed) expect(allow).toContain(m);
    expect(allow).not.toContain(method);
  });
});

describe('request bodies', () => {
  it('413 for a JSON body over 2 MiB', async () => {
    const name = 'x'.repeat(2 * 1024 * 1024);
    const res = await lab.as(lab.tokens.platform).post('/tenants', { type: 'customer', name });
    expectProblem(res, 413, 'payload_too_large');
    expect(res.text.length).toBeLessThan(2000);

    // Just below the limit the body is read and validated.
    const below = await lab.as(lab.tokens.platform).post('/tenants', { type: 'customer', name: name.slice(0, 2 * 1024 * 1024 - 100) });
    expectProblem(below, 422, 'validation_failed');
    expect(below.body.errors[0].pointer).toBe('/name');
  });

  it('400 for malformed JSON', async () => {
    for (const rawBody of ['{"type": "customer", "name": ', '{type: customer}', "{'a': 1}"]) {
      const res = await lab.as(lab.tokens.platform).request('POST', '/tenants', {
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(res, 400, 'malformed_request');
    }
  });

  it('400 for a body that does not match its Content-Encoding, and a compressed body is read', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await lab.as(lab.tokens.platform).request('POST', '/tenants', {
        rawBody: JSON.stringify({ type: 'customer', name: unique('Not compressed') }),
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      expectProblem(res, 400, 'malformed_request');
    }
    const name = unique('Gzipped GmbH');
    const res = await fetch(`${lab.url}/api/v1/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lab.tokens.platform}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ type: 'customer', name })),
    });
    expect(res.status).toBe(201);
    expect((await res.json()).name).toBe(name);
  });

  it('415 for a body that is not JSON', async () => {
    const name = unique('Form GmbH');
    for (const [type, rawBody] of [
      ['text/plain', JSON.stringify({ type: 'customer', name })],
      ['application/x-www-form-urlencoded', `type=customer&name=${encodeURIComponent(name)}`],
    ]) {
      const res = await lab.as(lab.tokens.platform).request('POST', '/tenants', { rawBody, headers: { 'content-type': type! } });
      expectProblem(res, 415, 'unsupported_media_type');
    }
    const created = await lab.as(lab.tokens.platform).post('/tenants', { type: 'customer', name: unique('Json GmbH') });
    const patch = await lab.as(lab.tokens.platform).request('PATCH', `/tenants/${created.body.id}`, {
      rawBody: JSON.stringify({ name }),
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(patch, 415, 'unsupported_media_type');
    const list = await lab.as(lab.tokens.platform).get(`/tenants?q=${encodeURIComponent(name)}`);
    expect(list.body.data).toHaveLength(0);
  });

  it('422 with a JSON pointer for each bad field, nested and unknown ones included', async () => {
    const res = await lab.as(lab.tokens.platform).post('/tenants', {
      type: 'customer',
      name: 'Pointer GmbH',
      limits: { api_rate_limit_per_minute: 0, burst: 10 },
      branding: { primary_color: 'red' },
      colour: 'blue',
    });
    expectProblem(res, 422, 'validation_failed');
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer).sort();
    expect(pointers).toEqual(['/branding/primary_color', '/colour', '/limits/api_rate_limit_per_minute', '/limits/burst']);
    for (const e of res.body.errors) {
      expect(e.in ?? 'body').toBe('body');
      expect(e.code).toEqual(expect.any(String));
      expect(e.detail).toEqual(expect.any(String));
    }
    expect(res.body.errors.find((e: { pointer: string }) => e.pointer === '/colour').code).toBe('unknown_field');
    expect(res.body.errors.find((e: { pointer: string }) => e.pointer === '/limits/burst').code).toBe('unknown_field');
  });

  it('422, not 500, for a NUL character PostgreSQL cannot store', async () => {
    const platform = lab.as(lab.tokens.platform);
    const body = await platform.post('/tenants', { type: 'customer', name: 'Nul\u0000 GmbH', branding: { display_name: 'a\u0000b' } });
    expectProblem(body, 422, 'validation_failed');
    expect(body.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/branding/display_name', '/name']);

    const query = await platform.get(`/audit-log?actor=${encodeURIComponent('cli_\u0000')}`);
    expectProblem(query, 422, 'validation_failed');
    expect(query.body.errors[0]).toMatchObject({ in: 'query', pointer: '/actor' });
  });

  it('400 nesting_too_deep, not 500, for a body nested 10,000 levels, on routes with and without a body', async () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const platform = lab.as(lab.tokens.platform);
    for (const [path, raw] of [
      ['/tenants', `{"type":"customer","name":"Deep","branding":{"x":${deep(10_000)}}}`],
      ['/tenants', deep(10_000)],
      // A body where the route takes none: still walked by the idempotency fingerprint.
      [`/tenants/${lab.tokens.tenants.customers[0]}/unsuspend`, `{"x":${deep(10_000)}}`],
    ] as const) {
      const res = await platform.request('POST', path, { rawBody: raw, headers: { 'content-type': 'application/json', 'Idempotency-Key': unique('deep') } });
      expectProblem(res, 400, 'nesting_too_deep');
      expect(res.body.detail).toContain('64');
    }
    // The bound is 64 levels: the top-level object is the first.
    const nested = (levels: number) => `{"type":"customer","name":${JSON.stringify(unique('Nested'))},"branding":{"x":${deep(levels - 2)}}}`;
    const atLimit = await platform.request('POST', '/tenants', { rawBody: nested(64), headers: { 'content-type': 'application/json' } });
    expect(atLimit.body.code).not.toBe('nesting_too_deep');
    const overLimit = await platform.request('POST', '/tenants', { rawBody: nested(65), headers: { 'content-type': 'application/json' } });
    expectProblem(overLimit, 400, 'nesting_too_deep');
    const german = await platform.request('POST', '/tenants', { rawBody: deep(100), headers: { 'content-type': 'application/json', 'Accept-Language': 'de' } });
    expectProblem(german, 400, 'nesting_too_deep', 'de');
    expect(german.body.detail).toContain('Ebenen');
  });

  describe('422, not 500, for an unpaired UTF-16 surrogate in any free-text field', () => {
    const LONE = ['\ud800', '\udfff', 'a\udc00b', 'x\ud83d'];
    const expectRefused = (res: ApiResponse, pointer: string, location?: string) => {
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toContainEqual(expect.objectContaining({ pointer, code: 'invalid_character', ...(location ? { in: location } : {}) }));
    };

    it('tenant name, branding and suspend reason, client names', async () => {
      const platform = lab.as(lab.tokens.platform);
      for (const bad of LONE) {
        expectRefused(await platform.post('/tenants', { type: 'customer', name: `Surrogate ${bad} GmbH` }), '/name');
        expectRefused(
          await platform.post('/tenants', { type: 'customer', name: unique('Branded'), branding: { display_name: bad } }),
          '/branding/display_name',
        );
      }
      const customer = lab.tokens.tenants.customers[0];
      expectRefused(await platform.patch(`/tenants/${customer}`, { name: '\ud800' }), '/name');
      expectRefused(await platform.post(`/tenants/${customer}/suspend`, { reason: 'unpaid \ud800' }), '/reason');
      expectRefused(await platform.post(`/tenants/${customer}/api-clients`, { name: '\udbff' }), '/name');
      // A paired surrogate (an emoji) is a character like any other.
      const emoji = await platform.post('/tenants', { type: 'customer', name: unique('Rocket \ud83d\ude80') });
      expect(emoji.status).toBe(201);
      expect(emoji.body.name).toContain('\u{1F680}');
      // Nothing was suspended by the refused request.
      expect((await platform.get(`/tenants/${customer}`)).body.status).toBe('active');
    });

    it('record and change-set comments and record data', async () => {
      const customer = lab.as(lab.tokens.customers[0]);
      const zone = `surrogate-${process.pid}-${++seq}.test`;
      expect((await customer.post('/zones', { name: zone })).status).toBe(201);
      const before = (await customer.get(`/zones/${zone}/changesets`)).body.data.length;
      expectRefused(await customer.post(`/zones/${zone}/records`, { type: 'TXT', name: 'a', data: { text: 'ok' }, comment: 'note \ud800' }), '/comment');
      expectRefused(await customer.post(`/zones/${zone}/records`, { type: 'TXT', name: 'a', data: { text: '\udfff' } }), '/data/text');
      expectRefused(
        await customer.post(`/zones/${zone}/changesets`, {
          comment: '\ud800',
          changes: [{ op: 'create', record: { type: 'TXT', name: 'b', data: { text: 'ok' } } }],
        }),
        '/comment',
      );
      expectRefused(
        await customer.post(`/zones/${zone}/changesets`, {
          changes: [{ op: 'create', record: { type: 'TXT', name: 'b', data: { text: 'ok' }, comment: 'x\udc00' } }],
        }),
        '/changes/0/record/comment',
      );
      // A field name is input too.
      expectRefused(
        await lab.as(lab.tokens.platform).post('/tenants', { type: 'customer', name: unique('Key'), branding: { '\ud800': 'x' } }),
        '/branding/\ud800',
      );
      // No change set was stored by any of them.
      expect((await customer.get(`/zones/${zone}/changesets`)).body.data).toHaveLength(before);
    });
  });

  it('422 names the index of a bad list item', async () => {
    const res = await lab.as(lab.tokens.platform).post('/tenants', { type: 'customer', name: 'Index GmbH', features: ['dnssec', 'teleport'] });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/features/1', index: 1 })]);
  });
});

describe('languages', () => {
  it('answers in German with Accept-Language de and says so in Content-Language', async () => {
    const api = lab.as(lab.tokens.platform).with({ 'Accept-Language': 'de' });
    const invalid = await api.post('/tenants', { type: 'customer', name: '' });
    expectProblem(invalid, 422, 'validation_failed', 'de');
    expect(invalid.body.title).toBe('Validierung fehlgeschlagen');
    expect(invalid.body.detail).toBe('Die Anfrage enthält ungültige Eingaben; siehe errors.');

    const missing = await api.get('/no-such-thing');
    expectProblem(missing, 404, 'not_found', 'de');
    expect(missing.body.title).toBe('Nicht gefunden');

    const anon = await anonymous().get('/me', { headers: { 'Accept-Language': 'de-AT, en;q=0.5' } });
    expectProblem(anon, 401, 'unauthenticated', 'de');
    expect(anon.body.title).toBe('Authentifizierung erforderlich');
  });

  it('answers in English by default and for unsupported languages', async () => {
    const variants: Record<string, string>[] = [{}, { 'Accept-Language': 'fr' }, { 'Accept-Language': 'fr-CH, ja;q=0.8' }, { 'Accept-Language': 'de;q=0, en' }];
    for (const headers of variants) {
      const res = await lab.as(lab.tokens.platform).post('/tenants', { type: 'customer', name: '' }, { headers });
      expectProblem(res, 422, 'validation_failed', 'en');
      expect(res.body.title).toBe('Validation failed');
    }
  });

  it('keeps the code stable across languages', async () => {
    const en = await lab.as(lab.tokens.customers[0]).get('/me', { headers: { 'X-Act-As-Customer': lab.tokens.tenants.customers[1] } });
    const de = await lab.as(lab.tokens.customers[0]).get('/me', {
      headers: { 'X-Act-As-Customer': lab.tokens.tenants.customers[1], 'Accept-Language': 'de' },
    });
    expectProblem(en, 403, 'act_as_not_allowed', 'en');
    expectProblem(de, 403, 'act_as_not_allowed', 'de');
    expect(de.body.title).not.toBe(en.body.title);
    expect(de.body.type).toBe(en.body.type);
  });
});

describe('ETags', () => {
  it('answers If-None-Match with 304 and a stale If-Match with 412 changing nothing', async () => {
    const platform = lab.as(lab.tokens.platform);
    const created = await platform.post('/tenants', { type: 'customer', name: unique('ETag GmbH') });
    expect(created.status).toBe(201);
    const path = `/tenants/${created.body.id}`;

    const got = await platform.get(path);
    expect(got.status).toBe(200);
    const etag = got.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(created.headers.get('etag')).toBe(etag);

    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const notModified = await platform.get(path, { headers: { 'If-None-Match': header } });
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers.get('etag')).toBe(etag);
    }
    expect((await platform.get(path, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);

    // Someone else changes the tenant: the ETag we hold is stale.
    const changed = await platform.patch(path, { name: unique('Changed elsewhere') });
    expect(changed.status).toBe(200);
    const current = changed.headers.get('etag')!;
    expect(current).not.toBe(etag);

    const stale = await platform.patch(path, { name: 'Lost update' }, { headers: { 'If-Match': etag } });
    expectProblem(stale, 412, 'precondition_failed');
    expect(stale.body.errors[0]).toMatchObject({ in: 'header', pointer: '/If-Match' });
    const after = await platform.get(path);
    expect(after.body.name).toBe(changed.body.name);
    expect(after.headers.get('etag')).toBe(current);
    // A weak tag never satisfies If-Match.
    expectProblem(await platform.patch(path, { name: 'Weak' }, { headers: { 'If-Match': `W/${current}` } }), 412, 'precondition_failed');

    const ok = await platform.patch(path, { name: unique('Careful update') }, { headers: { 'If-Match': current } });
    expect(ok.status).toBe(200);
    const newer = ok.headers.get('etag')!;
    expect(newer).not.toBe(current);
    const final = await platform.get(path);
    expect(final.body.name).toBe(ok.body.name);
    expect(final.headers.get('etag')).toBe(newer);
    expect((await platform.get(path, { headers: { 'If-None-Match': current } })).status).toBe(200);
    expect((await platform.get(path, { headers: { 'If-None-Match': newer } })).status).toBe(304);
  });
});

describe('500 internal_error', () => {
  it('is a generic problem with the request id when the database fails, and tells nothing more', async () => {
    const admin = new pg.Client({ connectionString: lab.databaseUrl });
    await admin.connect();
    const reseller = lab.as(lab.tokens.reseller);
    try {
      expect((await reseller.get('/audit-log')).status).toBe(200);
      await admin.query('ALTER TABLE audit_log RENAME TO audit_log_x');
      try {
        const res = await reseller.get('/audit-log');
        expectProblem(res, 500, 'internal_error');
        expect(res.body.title).toBe('Internal error');
        expect(res.body.detail).toBe('Something went wrong on our side. Quote the request id when you contact support.');
        expect(res.body).not.toHaveProperty('errors');
        expect(res.text).not.toMatch(/audit_log|relation|select|postgres|knex|stack|\.ts\b/i);

        const de = await reseller.get('/audit-log', { headers: { 'Accept-Language': 'de' } });
        expectProblem(de, 500, 'internal_error', 'de');
        expect(de.body.title).toBe('Interner Fehler');
        expect(de.body.request_id).not.toBe(res.body.request_id);
      } finally {
        await admin.query('ALTER TABLE audit_log_x RENAME TO audit_log');
      }
      expect((await reseller.get('/audit-log')).status).toBe(200);
    } finally {
      await admin.end();
    }
  });
});
