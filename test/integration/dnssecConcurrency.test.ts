// Issue 23: more than about 12 concurrent DNSSEC enable/disable calls, even on different zones,
// answered 503 after exactly the pool's acquire timeout. Each request's transaction held one pool
// connection while the lab registrar asked the pool for another (registration, delegation, DS):
// with the pool's 10 connections all held by requests waiting for an eleventh, none could go on.
// Every call now works on the connection it holds: 50 at once on 50 zones all succeed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

const ZONES = 50;
let lab: TestService;
let api: ApiClient;
const names = Array.from({ length: ZONES }, (_, i) => `sec-many-${Date.now().toString(36)}-${i}.example`);

beforeAll(async () => {
  lab = await startTestService();
  api = lab.as(lab.tokens.platform);
  for (const name of names) {
    const res = await api.post('/zones', { name });
    expect(res.status, res.text).toBe(201);
  }
});
afterAll(() => lab?.stop());

const all = (path: string) => Promise.all(names.map((name) => api.post(`/zones/${name}/dnssec/${path}`, {})));

it('enables DNSSEC on 50 zones at once, checks all 50 at once, then disables all 50 at once: every call succeeds, none 503', async () => {
  const enabled = await all('enable');
  expect(
    enabled.map((r) => r.status),
    enabled.find((r) => r.status !== 202)?.text,
  ).toEqual(Array(ZONES).fill(202));
  expect(enabled.every((r) => r.body.mode === 'automatic')).toBe(true);
  // A check now on each (its own transaction and the limiter's block: before the request's).
  const checked = await all('check');
  expect(
    checked.map((r) => r.status),
    checked.find((r) => r.status !== 200)?.text,
  ).toEqual(Array(ZONES).fill(200));
  const again = await api.post(`/zones/${names[0]}/dnssec/check`, {});
  expect(again.status, again.text).toBe(429);
  expect(again.body.code).toBe('rate_limited');
  const disabled = await all('disable');
  expect(
    disabled.map((r) => r.status),
    disabled.find((r) => r.status !== 202)?.text,
  ).toEqual(Array(ZONES).fill(202));
  const views = await Promise.all(names.map((name) => api.get(`/zones/${name}/dnssec`)));
  expect(new Set(views.map((v) => v.body.state))).toEqual(new Set(['unsigning']));
}, 60_000);
