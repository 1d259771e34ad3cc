// Receiver URLs are normalised before the address policy (docs/webhooks.md "URL safety"): a
// deployment with http allowed but private addresses off (so only the address rules can refuse)
// must refuse every spelling of the loopback — upper case, a final dot, IPv6 — with the same
// problem, and store what it accepts in the normalised form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

let svc: TestService;
let api: ApiClient;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_HTTP: 'on', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'off' } });
  api = svc.as(svc.tokens.reseller);
});
afterAll(() => svc?.stop());

const LOOPBACK_SPELLINGS = [
  'http://LOCALHOST./',
  'http://localhost./',
  'http://LocalHost/',
  'http://localhost/',
  'http://hooks.LOCALHOST./in',
  'http://127.0.0.1./',
  'http://127.0.0.1/',
  'http://0x7f.1/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://localhost../',
];

describe('webhook URLs with private addresses off', () => {
  it.each(LOOPBACK_SPELLINGS)('refuses %s at registration with 422 invalid_url', async (url) => {
    const res = await api.post('/webhooks', { url, events: ['zone.changed'] });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors[0]).toMatchObject({ pointer: '/url', code: 'invalid_url' });
  });

  it('stores the normalised URL, and normalises a change the same way', async () => {
    const created = await api.post('/webhooks', { url: 'http://Hooks.Example.COM./In?Token=AbC', events: ['zone.changed'] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.url).toBe('http://hooks.example.com/In?Token=AbC');
    expect((await api.get(`/webhooks/${created.body.id}`)).body.url).toBe('http://hooks.example.com/In?Token=AbC');

    for (const url of LOOPBACK_SPELLINGS) {
      const res = await api.patch(`/webhooks/${created.body.id}`, { url });
      expect([res.status, res.body.errors?.[0]?.code], url).toEqual([422, 'invalid_url']);
    }
    const changed = await api.patch(`/webhooks/${created.body.id}`, { url: 'HTTP://Other.EXAMPLE.NET./x' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.url).toBe('http://other.example.net/x');
    expect((await api.get('/webhooks')).body.data.map((w: { url: string }) => w.url)).toEqual(['http://other.example.net/x']);
  });
});
