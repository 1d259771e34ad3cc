// A signed member of a catalog (issue 26; docs/catalog-zones.md): Knot, following a secondary
// set's catalog with a template per `group`, serves the zone with its signatures, and an answer
// taken from Knot validates from the lab root's trust anchor. DNSSEC off keeps the member; a member
// enabled while Knot is down waits for Knot to serve its keys before its DS goes up.
//
// Why the answer is Knot's: BIND 9.18's delv sends every question — the answer, the zone's DNSKEY,
// the DS at the parent, the parents' keys — to the one server it is given, and Knot holds only the
// member (9.18 has no way to send some questions elsewhere). So delv asks unbound, with the
// checking-disabled bit (+cdflag: unbound hands over what it got, and the verdict is delv's own),
// and unbound takes the zone's names from Knot alone (a stub zone pointing at Knot) and everything
// above it — the root, the TLD and the DS the TLD holds for the zone — from the lab's nameserver.
// delv walks the chain from the lab root's anchor: the zone's DNSKEY set, the signed answer and the
// NSEC3 proofs are Knot's, the DS that vouches for them is the lab's. unbound, asked without CD,
// validates the same on its own (AD). The last step stops Knot and shows unbound can no longer
// answer for the zone while the lab's nameserver still does: unbound had no other source for it.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { freePort } from '../../bench/lib/benchService.js';
import { memberLabel } from '../../src/catalog/catalogRecords.js';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import {
  ALL_ROLES,
  axfr,
  createActiveZone,
  dnsPort,
  dnssecOf,
  expectLdnsVerifies,
  labRootKey,
  labTrustAnchorsConf,
  passLabTime,
  untilDnssecState,
  untilLabTrustAnchor,
} from '../helpers/dnssecLab.js';
import { requireTool, runToolAsync, tempFile } from '../helpers/dnsTools.js';
import { type KnotSecondary, startKnotCatalogConsumer } from '../helpers/knot.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';
import { startUnbound, type Unbound } from '../helpers/unbound.js';

const required = process.env.REQUIRE_DNS_TOOLS === '1';
const ZONE = 'cat-signed.example';
/** Enabled while Knot is down. */
const LATE = 'cat-late.example';
const escaped = (name: string) => name.replace(/\./g, '\\.');

interface Answer {
  status: string;
  flags: string[];
  text: string;
}

/** `kdig +dnssec` at `port`: the status, the header flags and the whole output. */
async function kdig(ctx: TestContext, port: number, name: string, type: string, recurse = false): Promise<Answer> {
  const run = await runToolAsync(requireTool('kdig', ctx), [
    '@127.0.0.1',
    '-p',
    String(port),
    '+dnssec',
    recurse ? '+rec' : '+norec',
    '+timeout=5',
    '+retry=0',
    name,
    type,
  ]);
  const status = /status: ([A-Z]+)/.exec(run.stdout)?.[1];
  const flags = /;; Flags: ([a-z ]*);/.exec(run.stdout)?.[1];
  expect(status && flags !== undefined, run.stdout + run.stderr).toBeTruthy();
  return { status: status!, flags: flags!.trim().split(/\s+/), text: run.stdout };
}

describe.skipIf(!required && (!requireTool('knotd') || !requireTool('unbound')))(
  'a signed member of a catalog, served by Knot and validated from the lab root',
  { timeout: 120_000 },
  () => {
    let lab: DnsLab;
    let knot: KnotSecondary;
    let unbound: Unbound;
    let catalog: string;
    let label: string;

    const catalogAtKnot = (ctx: TestContext) => axfr(ctx, lab, catalog, knot.port);
    const groupLine = (group: string) => new RegExp(`^group\\.${label}\\.zones\\.${escaped(catalog)}\\.\\s+\\d+\\s+IN\\s+TXT\\s+"${group}"$`, 'm');
    const delvViaUnbound = async (ctx: TestContext, name: string, type: string, anchors = labTrustAnchorsConf(lab)) => {
      const run = await runToolAsync(requireTool('delv', ctx), ['@127.0.0.1', '-p', String(unbound.port), '+cdflag', '-a', anchors, name, type]);
      return run.stdout + run.stderr;
    };

    beforeAll(async () => {
      // Named before knotd binds it: outside the range outgoing connections take their ports from.
      const knotPort = await portOutsideEphemeralRange();
      lab = await startDnsLab({ env: ALL_ROLES });
      const set = await lab.customerA.post('/secondary-sets', {
        name: 'signed-fleet',
        secondaries: [{ address: '127.0.0.1', port: knotPort }],
        group_by: 'dnssec',
      });
      expect(set.status, set.text).toBe(201);
      catalog = set.body.catalog_zone;
      knot = await startKnotCatalogConsumer({
        port: async () => knotPort,
        primaryPort: dnsPort(lab),
        catalog,
        groups: ['signed', 'unsigned'],
      });
      await untilLabTrustAnchor(lab);
      unbound = await startUnbound({
        port: freePort,
        upstreamPort: dnsPort(lab),
        trustAnchorFile: labRootKey(lab),
        stubZones: [ZONE, LATE].map((name) => ({ name, port: knot.port })),
      });
    }, 90_000);
    afterAll(async () => {
      await unbound?.close();
      await knot?.close();
      await lab?.close();
    });

    it('serves the zone signed once DNSSEC is enabled: RRSIG on answers, a signed DNSKEY set, NSEC3 denial; the member’s group is signed', async (ctx) => {
      await createActiveZone(lab, ZONE, [{ type: 'A', name: 'www', data: { address: '192.0.2.110' } }]);
      const id = (await lab.sql.query<{ id: string }>(`SELECT id FROM zones WHERE name = $1`, [ZONE])).rows[0]!.id;
      label = memberLabel(id);
      await eventually(async () => (groupLine('unsigned').test(await catalogAtKnot(ctx)) ? true : undefined), 30_000, 'Knot to hold the member, unsigned');

      const started = await lab.customerA.post(`/zones/${ZONE}/dnssec/enable`, {});
      expect(started.status, started.text).toBe(202);
      await untilDnssecState(lab, ZONE, 'active');

      const www = await eventually(
        async () => {
          const a = await kdig(ctx, knot.port, `www.${ZONE}`, 'A');
          return /\tRRSIG\tA 13 /.test(a.text) ? a : undefined;
        },
        15_000,
        'Knot to serve the signed zone',
      );
      expect(www.flags).toContain('aa');
      expect(www.text).toMatch(/\tA\t192\.0\.2\.110$/m);
      const keys = await kdig(ctx, knot.port, ZONE, 'DNSKEY');
      expect(keys.text).toMatch(/\tDNSKEY\t257 3 13 /);
      expect(keys.text).toMatch(/\tDNSKEY\t256 3 13 /);
      expect(keys.text).toMatch(/\tRRSIG\tDNSKEY 13 /);
      const missing = await kdig(ctx, knot.port, `nothing.${ZONE}`, 'A');
      expect(missing.status).toBe('NXDOMAIN');
      expect(missing.text).toMatch(/\tNSEC3\t1 0 0 - /);
      expect(missing.text).toMatch(/\tRRSIG\tNSEC3 13 /);
      // Knot's whole copy verifies: every signature and the NSEC3 chain.
      expectLdnsVerifies(ctx, await axfr(ctx, lab, ZONE, knot.port));

      await eventually(async () => (groupLine('signed').test(await catalogAtKnot(ctx)) ? true : undefined), 15_000, 'the member’s group to be signed at Knot');
    });

    it('an answer from Knot validates from the lab root (delv through unbound, whose only source for the zone is Knot)', async (ctx) => {
      expect(await delvViaUnbound(ctx, `www.${ZONE}`, 'A')).toMatch(/; fully validated\n.*\tA\t192\.0\.2\.110/);
      expect(await delvViaUnbound(ctx, `nothing.${ZONE}`, 'A')).toMatch(/; negative response, fully validated/);
      expect(await delvViaUnbound(ctx, `www.${ZONE}`, 'TXT')).toMatch(/; negative response, fully validated/);
      // The same question from a root anchor that matches no key of the lab root validates nothing.
      const anchors = fs.readFileSync(labTrustAnchorsConf(lab), 'utf8');
      const wrong = tempFile(
        'anchors.conf',
        anchors.replace(/"([0-9a-f]{2})([0-9a-f]{62})"/, (_, head: string, rest: string) => `"${head === 'ab' ? 'cd' : 'ab'}${rest}"`),
      );
      try {
        const refused = await delvViaUnbound(ctx, `www.${ZONE}`, 'A', wrong.file);
        expect(refused).toMatch(/resolution failed: broken trust chain/);
        expect(refused).not.toMatch(/fully validated/);
      } finally {
        wrong.remove();
      }
      const resolved = await kdig(ctx, unbound.port, `www.${ZONE}`, 'A', true);
      expect([resolved.status, resolved.flags.includes('ad')], unbound.log()).toEqual(['NOERROR', true]);
    });

    it('keeps the member when DNSSEC is disabled: the same label, group unsigned, and Knot serves the zone unsigned without a reset', async (ctx) => {
      const res = await lab.customerA.post(`/zones/${ZONE}/dnssec/disable`, {});
      expect(res.status, res.text).toBe(202);
      await untilDnssecState(lab, ZONE, 'off');
      await eventually(
        async () => {
          const a = await kdig(ctx, knot.port, `www.${ZONE}`, 'A');
          return /\tA\t192\.0\.2\.110$/m.test(a.text) && !/RRSIG/.test(a.text) ? true : undefined;
        },
        15_000,
        'Knot to serve the zone unsigned',
      );
      expect((await kdig(ctx, knot.port, ZONE, 'DNSKEY')).text).not.toMatch(/\tDNSKEY\t/);
      const copy = await catalogAtKnot(ctx);
      expect(copy).toMatch(groupLine('unsigned'));
      expect(copy).toMatch(new RegExp(`^${label}\\.zones\\.${escaped(catalog)}\\.\\s+\\d+\\s+IN\\s+PTR\\s+${escaped(ZONE)}\\.$`, 'm'));
      expect(copy.match(/\sPTR\s/g)).toHaveLength(1);

      // Knot took the group's changes as changes of one member: added once, bootstrapped by one AXFR
      // and never purged; every version since, signed and unsigned, came by IXFR up to the API's serial.
      const served = await eventually(
        async () => {
          const atKnot = (await queryDns(knot.port, ZONE, 'SOA')).answers[0]?.serial as number | undefined;
          return atKnot !== undefined && atKnot === (await lab.customerA.get(`/zones/${ZONE}`)).body.serial ? atKnot : undefined;
        },
        15_000,
        'Knot to serve the API’s serial',
      );
      const zoneLog = knot
        .log()
        .split('\n')
        .filter((line) => line.includes(`[${ZONE}.]`));
      expect(
        zoneLog.filter((line) => line.includes('zone added from catalog')),
        knot.log(),
      ).toHaveLength(1);
      expect(
        zoneLog.filter((line) => /AXFR, incoming, .* started/.test(line)),
        knot.log(),
      ).toHaveLength(1);
      expect(zoneLog.filter((line) => /IXFR, incoming, .* started/.test(line)).length, knot.log()).toBeGreaterThanOrEqual(2);
      expect(zoneLog.join('\n')).not.toMatch(/purged|removed/);
      expect(zoneLog.join('\n')).toMatch(new RegExp(`zone updated, .*serial \\d+ -> ${served},`));
    });

    it('waits for Knot before the DS goes up: a member enabled while Knot is down stays signing until Knot serves its keys', async (ctx) => {
      await createActiveZone(lab, LATE, [{ type: 'A', name: 'www', data: { address: '192.0.2.120' } }]);
      await eventually(async () => ((await queryDns(knot.port, LATE, 'SOA')).answers.length ? true : undefined), 30_000, 'Knot to serve the member');
      await knot.stop();
      const started = await lab.customerA.post(`/zones/${LATE}/dnssec/enable`, {});
      expect(started.status, started.text).toBe(202);
      // Twice the lab's DNSKEY TTL: with only its own nameservers asked, the worker would have
      // handed the DS to the registry by now, and resolvers asking Knot (unsigned) would fail.
      for (let i = 0; i < 10; i++) await passLabTime(lab);
      expect((await dnssecOf(lab, LATE)).state).toBe('signing');
      const ds = await kdig(ctx, dnsPort(lab), LATE, 'DS');
      expect(ds.status).toBe('NOERROR');
      expect(ds.text).not.toMatch(/^cat-late\.example\.\s+\d+\s+IN\s+DS\s/m);

      await knot.restart();
      await untilDnssecState(lab, LATE, 'active');
      expect(await delvViaUnbound(ctx, `www.${LATE}`, 'A')).toMatch(/; fully validated\n.*\tA\t192\.0\.2\.120/);
    });

    it('keeps a signed member in the catalog while its deletion waits for the DS to go, and Knot serving it signed; purged once it is gone', async (ctx) => {
      const id = (await lab.sql.query<{ id: string }>(`SELECT id FROM zones WHERE name = $1`, [LATE])).rows[0]!.id;
      const res = await lab.customerA.delete(`/zones/${LATE}?confirm=${LATE}`);
      expect(res.status, res.text).toBe(202);
      expect((await dnssecOf(lab, LATE)).state).toBe('ds_removing');
      // Resolvers holding the DS may ask Knot: it must keep answering, signed, and the catalog listing it.
      await passLabTime(lab);
      const signed = await kdig(ctx, knot.port, `www.${LATE}`, 'A');
      expect(signed.status).toBe('NOERROR');
      expect(signed.text).toMatch(/\tRRSIG\tA /);
      expect(await catalogAtKnot(ctx)).toMatch(
        new RegExp(`^${memberLabel(id)}\\.zones\\.${escaped(catalog)}\\.\\s+\\d+\\s+IN\\s+PTR\\s+${escaped(LATE)}\\.$`, 'm'),
      );
      await eventually(
        async () => {
          await passLabTime(lab);
          return (await lab.customerA.get(`/zones/${LATE}`)).status === 404 ? true : undefined;
        },
        60_000,
        `${LATE} to be gone`,
      );
      await eventually(
        async () => {
          const r = await queryDns(knot.port, LATE, 'SOA');
          return r.rcode !== 0 || !r.aa ? true : undefined;
        },
        30_000,
        'Knot to purge the deleted member',
      );
    });

    it('has no other source for the zone: with Knot stopped, unbound cannot answer it, though the lab’s nameserver does', async (ctx) => {
      await knot.stop();
      const direct = await queryDns(dnsPort(lab), `www.${ZONE}`, 'A');
      expect(direct.answers.map((a) => a.address)).toEqual(['192.0.2.110']);
      await eventually(
        async () => ((await kdig(ctx, unbound.port, `www.${ZONE}`, 'A', true)).status === 'SERVFAIL' ? true : undefined),
        15_000,
        'unbound to fail without Knot',
      );
    });
  },
);
