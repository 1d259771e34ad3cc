// DNSSEC as a customer meets it (docs/dnssec.md): enable over the API, the zone is signed by the
// publication build and served signed, the worker walks the state machine on what the real DNS
// shows, and disabling brings the zone back unsigned. Checked with software nobody here wrote:
// delv validates answers from the zone's own DS as trust anchor, and the transferred signed zone
// passes ldns-verify-zone, dnssec-verify and kzonecheck.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createZone, type DnsLab, newCustomer, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import {
  ALL_ROLES,
  axfr,
  createActiveZone,
  delv,
  dnsPort,
  dnssecOf,
  expectLdnsVerifies,
  labRootKey,
  labTrustAnchorsConf,
  passLabTime,
  untilDnssecState,
  untilLabTrustAnchor,
  untilTldValidates,
} from '../helpers/dnssecLab.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';

describe('DNSSEC in the lab: enable, served signed, validated from the lab root, disable', { timeout: 120_000 }, () => {
  let lab: DnsLab;
  beforeAll(async () => {
    // A one-day ZSK lifetime: the rollover test below moves the clock that far.
    lab = await startDnsLab({ env: { ...ALL_ROLES, DNSSEC_ZSK_LIFETIME_DAYS: '1' } });
    // The tests below move the clock days on; the lab's nightly reset (checked once a minute)
    // would then empty the lab under them, at a moment that depends on the machine's speed
    // (seen: the ZSK rollover's zone gone when the suite ran beside others).
    lab.service.labReset?.stop();
  });
  afterAll(async () => lab?.close());

  it('starts off, with nothing to do', async () => {
    await createZone(lab.customerA, 'sec-off.example');
    const body = await dnssecOf(lab, 'sec-off.example');
    expect(body).toMatchObject({
      zone: 'sec-off.example',
      state: 'off',
      mode: null,
      keys: [],
      ds: [],
      next_action: 'none',
      validation: { result: 'unchecked' },
    });
  });

  it('signs the lab root and TLDs and publishes the root key as the lab trust anchor', async (ctx) => {
    await untilLabTrustAnchor(lab);
    const file = labTrustAnchorsConf(lab);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^trust-anchors \{\n {2}"\." static-ds \d+ 13 2 "[0-9a-f]{64}";\n\};\n$/);
    expect(fs.readFileSync(labRootKey(lab), 'utf8')).toMatch(/^\. IN DS \d+ 13 2 [0-9a-f]{64}\n$/);
    const served = await lab.platform.get('/lab/trust-anchors');
    expect(served.status, served.text).toBe(200);
    expect(served.body).toMatchObject({ ready: true, trust_anchors_conf: fs.readFileSync(file, 'utf8') });
    // The TLD's DS goes into the root once its keys are out: then delv validates from the lab root.
    await untilTldValidates(ctx, lab, 'example');
  });

  it('enables (automatic: the lab registry takes the DS) and reaches active; delv validates from the lab root', async (ctx) => {
    const zone = 'sec-on.example';
    await createActiveZone(lab, zone, [
      { type: 'A', name: 'www', data: { address: '192.0.2.10' } },
      { type: 'MX', name: '@', data: { preference: 10, exchange: 'mail.sec-on.example.' } },
      { type: 'A', name: 'mail', data: { address: '192.0.2.25' } },
      { type: 'TXT', name: '*.wild', data: { text: 'wildcard' } },
      { type: 'A', name: 'deep.ent.sub', data: { address: '192.0.2.30' } },
    ]);
    const started = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ state: 'signing', mode: 'automatic', denial: 'nsec3', next_action: 'wait' });
    expect(started.body.keys.map((k: any) => [k.role, k.algorithm, k.flags, k.state]).sort()).toEqual([
      ['ksk', 13, 257, 'active'],
      ['zsk', 13, 256, 'active'],
    ]);
    const ksk = started.body.keys.find((k: any) => k.role === 'ksk');
    expect(started.body.ds).toEqual([expect.stringMatching(new RegExp(`^${ksk.key_tag} 13 2 [0-9a-f]{64}$`))]);

    // Enabling again while enabling: 200 with the same keys.
    const again = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(again.status).toBe(200);
    expect(again.body.keys.map((k: any) => k.id).sort()).toEqual(started.body.keys.map((k: any) => k.id).sort());

    const active = await untilDnssecState(lab, zone, 'active');
    expect(active).toMatchObject({
      next_action: 'none',
      ds_at_parent: { state: 'matching', records: started.body.ds },
      validation: { result: 'valid', reason: null },
    });

    for (const [name, type] of [
      [`www.${zone}`, 'A'],
      [zone, 'MX'],
      [zone, 'DNSKEY'],
      [`x.wild.${zone}`, 'TXT'],
    ] as const) {
      const out = await delv(ctx, lab, name, type);
      expect(out, `${name} ${type}`).toMatch(/; fully validated/);
    }
    for (const [name, type] of [
      [`nothing.${zone}`, 'A'],
      [`www.${zone}`, 'TXT'],
      [`sub.${zone}`, 'A'],
      [`x.wild.${zone}`, 'A'],
    ] as const) {
      const out = await delv(ctx, lab, name, type);
      expect(out, `${name} ${type}`).toMatch(/; negative response, fully validated/);
    }
    // From a DS that matches no key of the zone, nothing validates.
    const wrong = [started.body.ds[0].replace(/[0-9a-f]{64}$/, 'ab'.repeat(32))];
    expect(await delv(ctx, lab, `www.${zone}`, 'A', { zone, ds: wrong })).not.toMatch(/; fully validated/);

    const text = await axfr(ctx, lab, zone);
    expect(text).toMatch(/\tNSEC3PARAM\s+1 0 0 -/);
    expect(text).toMatch(/\tCDS\s/);
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
    expect(events.rows.map((e) => `${e.payload.from}→${e.payload.to}`)).toEqual([
      'off→signing',
      'signing→keys_published',
      'keys_published→ds_submitted',
      'ds_submitted→ds_published',
      'ds_published→validated',
      'validated→active',
    ]);
  });

  it('a zone holding every record type, written as content, validates type by type from the lab root', async (ctx) => {
    const zone = 'sec-types.example';
    const hash = 'ab'.repeat(28);
    // [name, type, content]: what a panel pastes; names in RDATA relative, absolute and in mixed case.
    const records: [string, string, string][] = [
      ['every', 'A', '192.0.2.40'],
      ['every', 'AAAA', '2001:db8::40'],
      ['every', 'TXT', '"v=spf1 -all" "second string"'],
      ['every', 'MX', '10 Mail'],
      ['mail', 'A', '192.0.2.25'],
      ['every', 'HTTPS', '1 . alpn=h3,h2 port=443 ipv4hint=192.0.2.40 ech=AEX+DQ== ipv6hint=2001:db8::40'],
      ['_dns.every', 'SVCB', `1 Every.${zone}. mandatory=alpn alpn=dot dohpath=/q{?dns}`],
      ['alias', 'HTTPS', '0 every'],
      ['_sip._udp.every', 'SRV', '1 2 5060 every'],
      ['every', 'RP', `admin.${zone}. every`],
      ['every', 'NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.test!" .'],
      ['every', 'CAA', '0 issue "ca.example.net"'],
      ['every', 'SSHFP', `4 2 ${'cd'.repeat(32)}`],
      ['every', 'URI', '10 1 "https://Every.Example.test/"'],
      ['every', 'HINFO', '"RISC-V" "Linux 6"'],
      ['every', 'CERT', '1 12345 13 AQIDBAUGBwg='],
      ['every', 'LOC', '52 30 0.000 N 13 15 0.000 W 34.50m 1m 10000m 10m'],
      ['www', 'CNAME', 'every'],
      ['every', 'TYPE65400', '\\# 3 00ff10'],
      ['_443._tcp.every', 'TLSA', `3 1 1 ${'ef'.repeat(32)}`],
      [`${hash}._openpgpkey`, 'OPENPGPKEY', 'mQINBGAAAAABEAC='],
      [`${hash}._smimecert`, 'SMIMEA', `3 1 1 ${'ef'.repeat(32)}`],
    ];
    await createActiveZone(
      lab,
      zone,
      records.map(([name, type, content]) => ({ name, type, content })),
    );
    const enabled = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(enabled.status, enabled.text).toBe(202);
    await untilDnssecState(lab, zone, 'active');

    const owner = (name: string) => `${name}.${zone}`;
    for (const [name, type] of Array.from(new Set(records.map(([n, t]) => `${n} ${t}`)), (k) => k.split(' '))) {
      const out = await delv(ctx, lab, owner(name!), type!);
      expect(out, `${name} ${type}`).toMatch(/; fully validated/);
      // The answer holds the asked type (delv prints RFC 3597 types as TYPEnnn), not only its denial.
      expect(out, `${name} ${type}`).toMatch(new RegExp(`\\s(IN\\s+)?${type}\\s`));
    }
    // Denials next to the new types: no such type at a name holding all of them, no such name.
    for (const [name, type] of [
      ['every', 'DNAME'],
      ['every', 'TYPE65401'],
      ['nothing.every', 'HTTPS'],
    ] as const) {
      const out = await delv(ctx, lab, owner(name), type);
      expect(out, `${name} ${type}`).toMatch(/; negative response, fully validated/);
    }
  });

  it('re-signs a changed record and keeps validating', async (ctx) => {
    const zone = 'sec-on.example';
    const res = await lab.customerA.post(`/zones/${zone}/records`, { type: 'A', name: 'new', data: { address: '192.0.2.99' } });
    expect(res.status, res.text).toBe(201);
    await eventually(
      async () => ((await delv(ctx, lab, `new.${zone}`, 'A')).includes('; fully validated') ? true : undefined),
      15_000,
      'the new record to validate',
    );
  });

  it('signs each change by its names: a handful of signatures per version, the zone valid after each', async (ctx) => {
    const zone = 'sec-on.example';
    const {
      rows: [row],
    } = await lab.sql.query(`SELECT id FROM zones WHERE name = $1`, [zone]);
    const live = async (res: { status: number; text: string; body: any }) => {
      expect(res.status, res.text).toBeLessThan(300);
      const id = (await lab.customerA.get(`/zones/${zone}`)).body.publication.changeset_id;
      await eventually(
        async () => ((await lab.customerA.get(`/zones/${zone}/changesets/${id}`)).body.state === 'live' ? true : undefined),
        15_000,
        `${id} live`,
      );
      const { rows } = await lab.sql.query(`SELECT added FROM zone_versions WHERE zone_id = $1 ORDER BY serial DESC LIMIT 1`, [row.id]);
      return (rows[0].added as { type: number }[]).filter((r) => r.type === 46).length;
    };
    const builds = { ...lab.service.publication!.builds };
    // A new name (its RRset, its NSEC3 and its predecessor's, the SOA), a name two levels down with
    // an empty non-terminal, data at an existing name, and the deep name and its ENT going again.
    expect(await live(await lab.customerA.post(`/zones/${zone}/records`, { type: 'A', name: 'inc1', data: { address: '192.0.2.101' } }))).toBeLessThanOrEqual(
      4,
    );
    const deep = await lab.customerA.post(`/zones/${zone}/records`, { type: 'TXT', name: 'a.ent-here', data: { text: 'deep' } });
    expect(await live(deep)).toBeLessThanOrEqual(6);
    expect(await live(await lab.customerA.post(`/zones/${zone}/records`, { type: 'TXT', name: 'inc1', data: { text: 'more' } }))).toBeLessThanOrEqual(3);
    expect(await live(await lab.customerA.delete(`/zones/${zone}/records/${deep.body.id}`))).toBeLessThanOrEqual(4);
    // Each version was signed by the names it touched (test/unit/dnssec/signUpdate.test.ts holds
    // the incremental signer to the whole one).
    expect(lab.service.publication!.builds.by_change - builds.by_change).toBeGreaterThanOrEqual(4);
    expect(await delv(ctx, lab, `a.ent-here.${zone}`, 'TXT')).toMatch(/; negative response, fully validated/);
    expect(await delv(ctx, lab, `inc1.${zone}`, 'TXT')).toMatch(/; fully validated/);
    expectLdnsVerifies(ctx, await axfr(ctx, lab, zone));
  });

  it('keeps accepting writes while a zone is signed whole, and signs them next', async (ctx) => {
    const zone = 'sec-busy.example';
    expect((await lab.customerA.post('/zones', { name: zone })).status).toBe(201);
    for (let from = 0; from < 3000; from += 1000) {
      const changes = Array.from({ length: 1000 }, (_, k) => ({
        op: 'create',
        record: { name: `h${from + k}`, type: 'A', data: { address: `10.0.${(from + k) >> 8}.${(from + k) & 255}` } },
      }));
      const res = await lab.customerA.post(`/zones/${zone}/changesets`, { changes });
      expect(res.status, res.text).toBe(201);
    }
    const whole = lab.service.publication!.builds.whole;
    expect((await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {})).status).toBe(202);
    // Written while the first signing of the zone runs (outside the zone's row lock).
    const written: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await lab.customerA.post(`/zones/${zone}/records`, { type: 'TXT', name: `during${i}`, data: { text: `w${i}` } });
      expect(res.status, res.text).toBe(201);
      written.push(`during${i}`);
    }
    await untilDnssecState(lab, zone, 'keys_published');
    expect(lab.service.publication!.builds.whole).toBeGreaterThan(whole);
    const text = await eventually(
      async () => {
        const axfrText = await axfr(ctx, lab, zone);
        return written.every((n) => axfrText.includes(`${n}.${zone}.`)) ? axfrText : undefined;
      },
      20_000,
      'every write served',
    );
    expectLdnsVerifies(ctx, text);
  });

  it('checks at most once a minute per zone', async () => {
    const zone = 'sec-on.example';
    const first = await lab.customerA.post(`/zones/${zone}/dnssec/check`, {});
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ state: 'active', validation: { result: 'valid' } });
    const second = await lab.customerA.post(`/zones/${zone}/dnssec/check`, {});
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.body.code).toBe('rate_limited');
  });

  it('assisted: a foreign-registered domain waits for the customer’s DS; a wrong DS shows as a failing validation', async (ctx) => {
    const zone = 'sec-foreign.example';
    await createActiveZone(lab, zone, [{ type: 'A', name: 'www', data: { address: '192.0.2.40' } }]);
    expect((await lab.platform.patch(`/lab/registrations/${zone}`, { registered_here: false })).status).toBe(200);
    const automatic = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, { mode: 'automatic' });
    expect(automatic.status).toBe(422);
    expect(automatic.body.errors[0]).toMatchObject({ pointer: '/mode', code: 'ds_not_submittable' });
    const started = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(started.status, started.text).toBe(202);
    expect(started.body.mode).toBe('assisted');
    const waiting = await untilDnssecState(lab, zone, 'awaiting_ds');
    expect(waiting.next_action).toBe('add_ds_at_registrar');

    const wrong = [started.body.ds[0].replace(/[0-9a-f]{64}$/, 'cd'.repeat(32))];
    expect((await lab.platform.put(`/lab/registrations/${zone}/ds`, { ds: wrong })).status).toBe(200);
    const mismatch = await eventually(
      async () => {
        await passLabTime(lab);
        const body = await dnssecOf(lab, zone);
        return body.ds_at_parent?.state === 'mismatch' ? body : undefined;
      },
      30_000,
      'the wrong DS to be seen',
    );
    expect(mismatch).toMatchObject({ state: 'awaiting_ds', next_action: 'fix_ds_at_registrar', validation: { result: 'invalid' } });
    expect(mismatch.validation.reason).toContain('matches no key');

    expect((await lab.platform.put(`/lab/registrations/${zone}/ds`, { ds: started.body.ds })).status).toBe(200);
    await untilDnssecState(lab, zone, 'active');
    expect(await delv(ctx, lab, `www.${zone}`, 'A')).toMatch(/; fully validated/);
  });

  it('rolls the KSK over on request (provider staff): both sign, the DS is replaced at the parent, the old KSK goes; validated throughout', async (ctx) => {
    const zone = 'sec-ksk.example';
    await createActiveZone(lab, zone, [{ type: 'A', name: 'www', data: { address: '192.0.2.50' } }]);
    expect((await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {})).status).toBe(202);
    const before = await untilDnssecState(lab, zone, 'active');
    const oldKsk = before.keys.find((k: any) => k.role === 'ksk');

    const denied = await lab.customerA.post(`/zones/${zone}/dnssec/rollover`, { key: 'ksk' });
    expect(denied.status).toBe(403);
    const staff = lab.platform.with({ 'X-Act-As-Customer': lab.tokens.tenants.customers[0] });
    const started = await staff.post(`/zones/${zone}/dnssec/rollover`, { key: 'ksk' });
    expect(started.status, started.text).toBe(202);
    expect(started.body.keys.filter((k: any) => k.role === 'ksk')).toHaveLength(2);
    expect(started.body.ds).toHaveLength(2);
    expect((await staff.post(`/zones/${zone}/dnssec/rollover`, { key: 'ksk' })).status).toBe(409);

    const done = await eventually(
      async () => {
        await passLabTime(lab);
        const body = await dnssecOf(lab, zone);
        const ksks = body.keys.filter((k: any) => k.role === 'ksk');
        return ksks.length === 1 && ksks[0].id !== oldKsk.id ? body : undefined;
      },
      60_000,
      'the old KSK to go',
    );
    expect(done.ds).toHaveLength(1);
    expect(done.ds[0]).not.toBe(before.ds[0]);
    await eventually(
      async () => {
        await passLabTime(lab);
        const body = await dnssecOf(lab, zone);
        return body.ds_at_parent?.records?.[0] === done.ds[0] ? true : undefined;
      },
      30_000,
      'the new DS at the parent',
    );
    expect(await delv(ctx, lab, `www.${zone}`, 'A')).toMatch(/; fully validated/);
    expect(await delv(ctx, lab, `nothing.${zone}`, 'A')).toMatch(/; negative response, fully validated/);
  });

  it('rolls the KSK over for an assisted zone: it asks the customer to replace the DS and keeps the old KSK until the new DS is seen', async (ctx) => {
    const zone = 'sec-ksk-assisted.example';
    await createActiveZone(lab, zone, [{ type: 'A', name: 'www', data: { address: '192.0.2.51' } }]);
    expect((await lab.platform.patch(`/lab/registrations/${zone}`, { registered_here: false })).status).toBe(200);
    const started = await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {});
    expect(started.body.mode).toBe('assisted');
    await untilDnssecState(lab, zone, 'awaiting_ds');
    expect((await lab.platform.put(`/lab/registrations/${zone}/ds`, { ds: started.body.ds })).status).toBe(200);
    const before = await untilDnssecState(lab, zone, 'active');
    const oldKsk = before.keys.find((k: any) => k.role === 'ksk');

    const staff = lab.platform.with({ 'X-Act-As-Customer': lab.tokens.tenants.customers[0] });
    const rolling = await staff.post(`/zones/${zone}/dnssec/rollover`, { key: 'ksk' });
    expect(rolling.status, rolling.text).toBe(202);
    const newDs = rolling.body.ds.filter((d: string) => d !== before.ds[0]);
    expect(newDs).toHaveLength(1);
    // The service cannot reach the registrar: the customer is asked to put the new DS there.
    const asked = await eventually(
      async () => {
        await passLabTime(lab);
        const body = await dnssecOf(lab, zone);
        return body.next_action === 'replace_ds_at_registrar' ? body : undefined;
      },
      60_000,
      'replace_ds_at_registrar',
    );
    expect(asked.keys.filter((k: any) => k.role === 'ksk').map((k: any) => k.id)).toContain(oldKsk.id);
    for (let i = 0; i < 3; i++) await passLabTime(lab);
    expect((await dnssecOf(lab, zone)).keys.map((k: any) => k.id)).toContain(oldKsk.id);
    expect(await delv(ctx, lab, `www.${zone}`, 'A')).toMatch(/; fully validated/);

    expect((await lab.platform.put(`/lab/registrations/${zone}/ds`, { ds: newDs })).status).toBe(200);
    const done = await eventually(
      async () => {
        await passLabTime(lab);
        const body = await dnssecOf(lab, zone);
        const ksks = body.keys.filter((k: any) => k.role === 'ksk');
        return ksks.length === 1 && ksks[0].id !== oldKsk.id && body.next_action === 'none' ? body : undefined;
      },
      60_000,
      'the old KSK to go',
    );
    expect(done.state).toBe('active');
    expect(await delv(ctx, lab, `www.${zone}`, 'A')).toMatch(/; fully validated/);
  });

  it('disables: the DS leaves the parent, its TTL is waited out, then the zone is served unsigned and its keys are gone', async (ctx) => {
    const zone = 'sec-on.example';
    const res = await lab.customerA.post(`/zones/${zone}/dnssec/disable`, {});
    expect(res.status, res.text).toBe(202);
    expect(res.body.state).toBe('ds_removing');
    const again = await lab.customerA.post(`/zones/${zone}/dnssec/disable`, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('dnssec_transition_in_progress');
    expect((await lab.customerA.post(`/zones/${zone}/dnssec/enable`, {})).status).toBe(409);
    await eventually(async () => (/\tCDS\s+0 0 0 00/.test(await axfr(ctx, lab, zone)) ? true : undefined), 15_000, 'the CDS delete form (RFC 8078)');

    const off = await untilDnssecState(lab, zone, 'off');
    expect(off).toMatchObject({ keys: [], ds: [], mode: null, next_action: 'none' });
    await eventually(async () => (!/\tRRSIG\s/.test(await axfr(ctx, lab, zone)) ? true : undefined), 15_000, 'the zone to be served unsigned');
    // Unsigned below a signed parent without DS: an insecure delegation, proven so.
    expect(await delv(ctx, lab, `www.${zone}`, 'A')).toMatch(/; unsigned answer/);
    expect((await lab.customerA.post(`/zones/${zone}/dnssec/disable`, {})).status).toBe(200);
  });

  it('creates a zone with dnssec: true signed from the start', async () => {
    const res = await lab.customerA.post('/zones', { name: 'sec-new.example', dnssec: true });
    expect(res.status, res.text).toBe(201);
    expect(res.body.dnssec.state).toBe('signing');
    expect((await dnssecOf(lab, 'sec-new.example')).keys).toHaveLength(2);
  });

  it('keeps every tenant to its own zones, and refuses bodies it does not know', async () => {
    expect((await lab.customerB.get('/zones/sec-new.example/dnssec')).status).toBe(404);
    for (const action of ['enable', 'disable', 'check']) {
      expect((await lab.customerB.post(`/zones/sec-new.example/dnssec/${action}`, {})).status).toBe(404);
    }
    const bad = await lab.customerA.post('/zones/sec-off.example/dnssec/enable', { mode: 'magic' });
    expect(bad.status).toBe(422);
    expect((await dnssecOf(lab, 'sec-off.example')).state).toBe('off');

    // The tenant feature `dnssec` gates every DNSSEC endpoint.
    const plain = await newCustomer(lab, 'No DNSSEC GmbH');
    expect((await lab.reseller.patch(`/tenants/${plain.id}`, { features: [] })).status).toBe(200);
    await createZone(plain.api, 'sec-plain.example');
    for (const res of [
      await plain.api.get('/zones/sec-plain.example/dnssec'),
      await plain.api.post('/zones/sec-plain.example/dnssec/enable', {}),
      await plain.api.post('/zones', { name: 'sec-plain2.example', dnssec: true }),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(res.body.code).toBe('feature_disabled');
    }

    const stats = await lab.customerA.get('/stats');
    expect(stats.body.zones.by_dnssec_state).toMatchObject({ off: expect.any(Number), active: expect.any(Number) });
  });

  it('deletes a signed zone only after its DS left the parent; a customer’s DS still seen needs force', async () => {
    const zone = 'sec-new.example';
    await untilDnssecState(lab, zone, 'active');
    const res = await lab.customerA.delete(`/zones/${zone}?confirm=${zone}`);
    expect(res.status, res.text).toBe(202);
    expect((await lab.customerA.get(`/zones/${zone}/dnssec`)).body.state).toBe('ds_removing');
    // Still served, signed, while the DS is being waited out.
    expect((await queryDns(Number(dnsPort(lab)), zone, 'SOA')).rcode).toBe(0);
    await eventually(
      async () => {
        lab.clock.advance(2_000);
        await new Promise((r) => setTimeout(r, 250));
        return (await lab.customerA.get(`/zones/${zone}`)).status === 404 ? true : undefined;
      },
      60_000,
      `${zone} to be gone`,
    );
    const gone = await lab.sql.query(`SELECT count(*)::int AS n FROM dnssec_keys k JOIN zones z ON z.id = k.zone_id WHERE z.name = $1`, [zone]);
    expect(gone.rows[0].n).toBe(0);

    const assisted = await lab.customerA.delete('/zones/sec-foreign.example?confirm=sec-foreign.example');
    expect(assisted.status).toBe(409);
    expect(assisted.body.code).toBe('dnssec_ds_present');
    expect((await dnssecOf(lab, 'sec-foreign.example')).state).toBe('active');
  });

  // Last: it moves the service's clock a week on, past what delv (on real time) would accept.
  it('refreshes signatures that near expiry without any write, and only those', async (ctx) => {
    const zone = 'sec-foreign.example';
    const expirations = async () => {
      const text = await axfr(ctx, lab, zone);
      const of = (owner: string, covered: string) =>
        new RegExp(`^${owner.replace(/\./g, '\\.')}\\.\\s+\\d+\\s+IN\\s+RRSIG\\s+${covered} \\d+ \\d+ \\d+ (\\d{14}) `, 'm').exec(text)?.[1];
      return { www: of(`www.${zone}`, 'A'), soa: of(zone, 'SOA') };
    };
    const before = await expirations();
    expect(before.www).toMatch(/^\d{14}$/);
    lab.clock.advance(8 * 86_400_000);
    const after = await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 200));
        const now = await expirations();
        return now.www !== before.www ? now : undefined;
      },
      30_000,
      'the signatures to be refreshed',
    );
    // Two weeks from the moved clock, not from the first signing (RRSIG times are YYYYMMDDHHmmSS).
    expect(Number(after.www!.slice(0, 8))).toBeGreaterThan(Number(before.www!.slice(0, 8)) + 6);
  });

  it('rolls the ZSK over by pre-publication: successor published, then signing, the old key retired, then gone; valid throughout', async (ctx) => {
    const zone = 'sec-foreign.example';
    const zsks = async () => ((await dnssecOf(lab, zone)).keys as any[]).filter((k) => k.role === 'zsk').map((k) => `${k.key_tag}:${k.state}`);
    const offset = () => String(Math.round((lab.clock.now().getTime() - Date.now()) / 1000));
    const verifyNow = async () => {
      const file = tempFile('zone.db', await axfr(ctx, lab, zone));
      try {
        // At the service's clock (moved days ahead of real time).
        const run = runTool(requireTool('ldns-verify-zone', ctx), ['-t', `+${offset()}`, file.file]);
        expect(run.status, run.output).toBe(0);
      } finally {
        file.remove();
      }
      // One check a minute: the next minute's.
      lab.clock.advance(60_000);
      const check = await lab.customerA.post(`/zones/${zone}/dnssec/check`, {});
      expect(check.status, check.text).toBe(200);
      expect(check.body.validation, JSON.stringify(check.body.validation)).toMatchObject({ result: 'valid' });
    };
    const [first] = await zsks();
    const tag = first!.split(':')[0];
    const until = async (what: string, ok: (keys: string[]) => boolean) =>
      eventually(
        async () => {
          lab.clock.advance(30_000);
          await new Promise((r) => setTimeout(r, 150));
          const keys = await zsks();
          return ok(keys) ? keys : undefined;
        },
        60_000,
        what,
      );
    lab.clock.advance(86_400_000);
    const published = await until('a successor ZSK to be published', (keys) => keys.some((k) => k.endsWith(':published')));
    expect(published).toContain(`${tag}:active`);
    await verifyNow();
    const rolled = await until('the successor to sign and the old key to retire', (keys) => keys.includes(`${tag}:retired`));
    expect(rolled.filter((k) => k.endsWith(':active'))).toHaveLength(1);
    await verifyNow();
    const done = await until('the retired key to go', (keys) => keys.length === 1);
    expect(done[0]).toMatch(/:active$/);
    expect(done[0]).not.toBe(`${tag}:active`);
    await verifyNow();
  });

  it('deletes an assisted zone whose DS is still up when forced', async () => {
    const res = await lab.customerA.delete('/zones/sec-foreign.example?confirm=sec-foreign.example&force=true');
    expect(res.status, res.text).toBe(202);
    expect((await dnssecOf(lab, 'sec-foreign.example')).state).toBe('unsigning');
  });
});
