// DNSSEC as a customer meets it (docs/dnssec.md): enable over the API, the zone is signed by the
// publication build and served signed, the worker walks the state machine on what the real DNS
// shows, and disabling brings the zone back unsigned. Checked with software nobody here wrote:
// delv validates answers from the zone's own DS as trust anchor, and the transferred signed zone
// passes ldns-verify-zone, dnssec-verify and kzonecheck.
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually } from '../helpers/dnsQuery.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';

const ALL_ROLES = { ROLES: 'api,nameserver,worker' };

const dnsPort = (lab: DnsLab) => String(lab.service.nameserver!.server.port);

/** `delv` against the lab's nameserver, trusting `zone`'s DS: its verdict line. */
function delv(ctx: TestContext, lab: DnsLab, zone: string, ds: string[], name: string, type: string): string {
  const tool = requireTool('delv', ctx);
  const anchors = tempFile('anchors.conf', `trust-anchors {\n${ds.map((d) => {
    const [tag, alg, digestType, digest] = d.split(/\s+/);
    return `  "${zone}." static-ds ${tag} ${alg} ${digestType} "${digest}";`;
  }).join('\n')}\n};\n`);
  try {
    const run = runTool(tool, ['@127.0.0.1', '-p', dnsPort(lab), '-a', anchors.file, `+root=${zone}`, name, type], { timeoutMs: 20_000 });
    return run.output;
  } finally {
    anchors.remove();
  }
}

/** The zone by AXFR from the lab's nameserver (dig), as a zone file. */
function axfr(ctx: TestContext, lab: DnsLab, zone: string): string {
  const dig = requireTool('dig', ctx);
  const run = runTool(dig, ['@127.0.0.1', '-p', dnsPort(lab), zone, 'AXFR', '+nocmd', '+nostats', '+nocomments', '+noquestion']);
  expect(run.status, run.output).toBe(0);
  return run.stdout;
}

async function dnssecOf(lab: DnsLab, zone: string) {
  const res = await lab.customerA.get(`/zones/${zone}/dnssec`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Moves the service's clock on and asks for a check until the zone is in `state`. */
async function untilDnssecState(lab: DnsLab, zone: string, state: string, timeoutMs = 30_000) {
  return eventually(async () => {
    lab.clock.advance(3_000);
    const body = await dnssecOf(lab, zone);
    return body.state === state ? body : undefined;
  }, timeoutMs, `${zone} to reach DNSSEC state ${state}`);
}

describe('DNSSEC: enable, served signed, the state machine, disable', () => {
  let lab: DnsLab;
  beforeAll(async () => {
    lab = await startDnsLab({ env: ALL_ROLES });
  });
  afterAll(async () => lab?.close());

  it('starts off, with nothing to do', async () => {
    await createZone(lab.customerA, 'sec-off.example');
    const body = await dnssecOf(lab, 'sec-off.example');
    expect(body).toMatchObject({ zone: 'sec-off.example', state: 'off', mode: null, keys: [], ds: [], next_action: 'none', validation: { result: 'unchecked' } });
  });

  it('enables: keys made, the zone signed and served signed, validated by delv and checked by three zone validators', async (ctx) => {
    const zone = 'sec-on.example';
    await createZone(lab.customerA, zone, { records: [
      { type: 'A', name: 'www', data: { address: '192.0.2.10' } },
      { type: 'MX', name: '@', data: { preference: 10, exchange: 'mail.sec-on.example.' } },
      { type: 'A', name: 'mail', data: { address: '192.0.2.25' } },
      { type: 'TXT', name: '*.wild', data: { text: 'wildcard' } },
      { type: 'A', name: 'deep.ent.sub', data: { address: '192.0.2.30' } },
    ] });
    const started = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ state: 'signing', mode: 'assisted', denial: 'nsec3', next_action: 'wait' });
    expect(started.body.keys.map((k: any) => [k.role, k.algorithm, k.flags, k.state]).sort()).toEqual([['ksk', 13, 257, 'active'], ['zsk', 13, 256, 'active']]);
    expect(started.body.ds).toHaveLength(1);
    const ksk = started.body.keys.find((k: any) => k.role === 'ksk');
    expect(started.body.ds[0]).toMatch(new RegExp(`^${ksk.key_tag} 13 2 [0-9a-f]{64}$`));

    // Enabling again while enabling: 200 with the same object.
    const again = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(again.status).toBe(200);
    expect(again.body.keys.map((k: any) => k.id).sort()).toEqual(started.body.keys.map((k: any) => k.id).sort());

    // The keys are served: the worker moves on, then (assisted: no registrar) waits for the customer's DS.
    await untilDnssecState(lab, zone, 'keys_published');
    const awaiting = await untilDnssecState(lab, zone, 'awaiting_ds');
    expect(awaiting.next_action).toBe('add_ds_at_registrar');

    const ds = started.body.ds as string[];
    expect(delv(ctx, lab, zone, ds, `www.${zone}`, 'A')).toMatch(/; fully validated/);
    expect(delv(ctx, lab, zone, ds, zone, 'MX')).toMatch(/; fully validated/);
    expect(delv(ctx, lab, zone, ds, zone, 'DNSKEY')).toMatch(/; fully validated/);
    // A DS that matches no key of the zone: nothing validates.
    const wrong = [ds[0]!.replace(/[0-9a-f]{64}$/, 'ab'.repeat(32))];
    expect(delv(ctx, lab, zone, wrong, `www.${zone}`, 'A')).not.toMatch(/; fully validated/);

    const text = axfr(ctx, lab, zone);
    expect(text).toMatch(/\tRRSIG\t/);
    expect(text).toMatch(/\tNSEC3PARAM\t1 0 0 -/);
    const file = tempFile('zone.db', text);
    try {
      const ldns = runTool(requireTool('ldns-verify-zone', ctx), [file.file]);
      expect(ldns.status, ldns.output).toBe(0);
      const bind = runTool(requireTool('dnssec-verify', ctx), ['-o', zone, file.file]);
      expect(bind.status, bind.output).toBe(0);
      const knot = runTool(requireTool('kzonecheck', ctx), ['-d', 'on', '-o', zone, file.file]);
      expect(knot.status, knot.output).toBe(0);
    } finally {
      file.remove();
    }
  });

  it('writes a dnssec.state_changed event for every transition, in order', async () => {
    const zone = await lab.sql.query(`SELECT id FROM zones WHERE name = 'sec-on.example'`);
    const events = await lab.sql.query(`SELECT payload FROM events WHERE zone_id = $1 AND kind = 'dnssec.state_changed' ORDER BY seq`, [zone.rows[0].id]);
    const steps = events.rows.map((e) => `${e.payload.from}→${e.payload.to}`);
    expect(steps.slice(0, 3)).toEqual(['off→signing', 'signing→keys_published', 'keys_published→awaiting_ds']);
  });

  it('re-signs a changed record and keeps validating', async (ctx) => {
    const zone = 'sec-on.example';
    const res = await lab.customerA.post(`/zones/${zone}/records`, { type: 'A', name: 'new', data: { address: '192.0.2.99' } });
    expect(res.status, res.text).toBe(201);
    const ds = (await dnssecOf(lab, zone)).ds as string[];
    await eventually(async () => (delv(ctx, lab, zone, ds, `new.${zone}`, 'A').includes('; fully validated') ? true : undefined), 15_000, 'the new record to validate');
  });

  it('checks at most once a minute per zone', async () => {
    const zone = 'sec-on.example';
    const first = await lab.customerA.post(`/zones/${zone}/dnssec/check`, {});
    expect(first.status, first.text).toBe(200);
    expect(first.body.checked_at).not.toBeNull();
    const second = await lab.customerA.post(`/zones/${zone}/dnssec/check`, {});
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.body.code).toBe('rate_limited');
  });

  it('disables: the DS waited out, then the zone is served unsigned and its keys are gone', async (ctx) => {
    const zone = 'sec-on.example';
    const res = await lab.customerA.post(`/zones/${zone}/dnssec/disable`, {});
    expect(res.status, res.text).toBe(202);
    expect(res.body.state).toBe('ds_removing');
    const again = await lab.customerA.post(`/zones/${zone}/dnssec/disable`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('dnssec_transition_in_progress');
    const enable = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(enable.status).toBe(409);

    const off = await untilDnssecState(lab, zone, 'off', 60_000);
    expect(off).toMatchObject({ keys: [], ds: [], mode: null, next_action: 'none' });
    await eventually(async () => (!/\tRRSIG\t/.test(axfr(ctx, lab, zone)) ? true : undefined), 15_000, 'the zone to be served unsigned');
    const disabledAgain = await lab.customerA.post(`/zones/${zone}/dnssec/disable`, {});
    expect(disabledAgain.status).toBe(200);
  });

  it('creates a zone with dnssec: true signed from the start', async () => {
    const res = await lab.customerA.post('/zones', { name: 'sec-new.example', dnssec: true });
    expect(res.status, res.text).toBe(201);
    expect(res.body.dnssec.state).toBe('signing');
    expect((await dnssecOf(lab, 'sec-new.example')).keys).toHaveLength(2);
  });

  it('keeps every tenant to its own zones, and refuses bodies it does not know', async () => {
    for (const path of ['/zones/sec-new.example/dnssec']) {
      expect((await lab.customerB.get(path)).status).toBe(404);
    }
    for (const action of ['enable', 'disable', 'check']) {
      expect((await lab.customerB.post(`/zones/sec-new.example/dnssec/${action}`, {})).status).toBe(404);
    }
    const bad = await lab.customerA.post('/zones/sec-off.example/dnssec/enable', { mode: 'magic' });
    expect(bad.status).toBe(422);
    const automatic = await lab.customerA.post('/zones/sec-off.example/dnssec/enable', { mode: 'automatic' });
    expect(automatic.status).toBe(422);
    expect(automatic.body.errors[0]).toMatchObject({ pointer: '/mode', code: 'ds_not_submittable' });
    expect((await dnssecOf(lab, 'sec-off.example')).state).toBe('off');
  });
});
