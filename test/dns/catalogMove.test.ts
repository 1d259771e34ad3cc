// A zone moving from one secondary set's catalog to another's (docs/catalog-zones.md "Moving
// between catalogs"), with BIND 9 (named, Debian's bind9) following both catalogs, as a fleet
// split into an unsigned and a signed set does. Enabling DNSSEC moves the zone: the old catalog
// keeps it with a change of ownership (RFC 9432 §5.6 `coo`) pointing at the new one, the new
// catalog lists it (same member label) only once the coo has been out for the hold time, named
// logs the change of ownership, and when the old catalog finally drops the member named keeps
// serving the zone — without the coo, named drops a zone when the catalog owning it drops it.
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { memberLabel } from '../../src/catalog/catalogRecords.js';
import { COO_GRACE_S, COO_HOLD_S } from '../../src/domain/secondarySets.js';
import { type BindSecondary, startBindCatalogConsumer } from '../helpers/bind.js';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { ALL_ROLES, axfr, createActiveZone, dnsPort, untilDnssecState } from '../helpers/dnssecLab.js';
import { requireTool } from '../helpers/dnsTools.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';

const named = requireTool('named');
const ZONE = 'moving-member.example';
const escaped = (s: string) => s.replace(/\./g, '\\.');

describe.skipIf(!named && process.env.REQUIRE_DNS_TOOLS !== '1')('a zone moving between two sets’ catalogs, with BIND following both', () => {
  let lab: DnsLab;
  let bind: BindSecondary;
  let bindPort: number;
  let unsignedCatalog: string;
  let signedCatalog: string;
  let label: string;

  /** The catalog as our nameserver serves it (to 127.0.0.1, a secondary of both sets). */
  const catalogText = (ctx: TestContext, catalog: string) => axfr(ctx, lab, catalog);
  const ptrLine = (catalog: string, owner: string, target: string) =>
    new RegExp(`^${owner}\\.zones\\.${escaped(catalog)}\\.\\s+\\d+\\s+IN\\s+PTR\\s+${escaped(target)}\\.$`, 'm');
  const lists = (text: string, catalog: string) => ptrLine(catalog, label, ZONE).test(text);
  const coo = (text: string, catalog: string, to: string) => ptrLine(catalog, `coo\\.${label}`, to).test(text);
  const servedByBind = async () => {
    const soa = await queryDns(bindPort, ZONE, 'SOA');
    return soa.rcode === 0 && soa.aa;
  };

  beforeAll(async () => {
    bindPort = await portOutsideEphemeralRange();
    lab = await startDnsLab({ env: ALL_ROLES });
    const secondaries = [{ address: '127.0.0.1', port: bindPort }];
    const unsigned = await lab.customerA.post('/secondary-sets', { name: 'unsigned-fleet', secondaries, zones: { group: 'unsigned' } });
    expect(unsigned.status, unsigned.text).toBe(201);
    const signed = await lab.customerA.post('/secondary-sets', { name: 'signed-fleet', secondaries, zones: { group: 'signed' } });
    expect(signed.status, signed.text).toBe(201);
    unsignedCatalog = unsigned.body.catalog_zone;
    signedCatalog = signed.body.catalog_zone;
    for (const catalog of [unsignedCatalog, signedCatalog])
      await eventually(async () => ((await queryDns(dnsPort(lab), catalog, 'SOA')).aa ? true : undefined), 10_000, `${catalog} served`);
    bind = await startBindCatalogConsumer({ port: async () => bindPort, primaryPort: dnsPort(lab), catalog: [unsignedCatalog, signedCatalog] });
  }, 60_000);
  afterAll(async () => {
    await bind?.close();
    await lab?.close();
  });

  it('adds the unsigned zone from the unsigned set’s catalog', async () => {
    await createActiveZone(lab, ZONE, [{ type: 'A', name: 'www', data: { address: '192.0.2.120' } }]);
    const id = (await lab.sql.query<{ id: string }>(`SELECT id FROM zones WHERE name = $1`, [ZONE])).rows[0]!.id;
    label = memberLabel(id);
    await eventually(async () => ((await servedByBind()) ? true : undefined), 30_000, 'named to serve the zone');
    expect(bind.log()).toMatch(new RegExp(`catz: adding zone '${escaped(ZONE)}' from catalog '${escaped(unsignedCatalog)}'`));
  });

  it('moves it to the signed set’s catalog with a coo first, the new catalog listing it a hold time later; named changes its owner', async (ctx) => {
    const started = await lab.customerA.post(`/zones/${ZONE}/dnssec/enable`, {});
    expect(started.status, started.text).toBe(202);
    const cooSeen = await eventually(
      async () => {
        const text = await catalogText(ctx, unsignedCatalog);
        return coo(text, unsignedCatalog, signedCatalog) ? Date.now() : undefined;
      },
      20_000,
      'the coo in the unsigned catalog',
    );
    // The member stays in the old catalog beside its coo; the new one does not list it yet.
    expect(lists(await catalogText(ctx, unsignedCatalog), unsignedCatalog)).toBe(true);
    expect(lists(await catalogText(ctx, signedCatalog), signedCatalog)).toBe(false);
    const listedAt = await eventually(
      async () => (lists(await catalogText(ctx, signedCatalog), signedCatalog) ? Date.now() : undefined),
      COO_HOLD_S * 1000 + 20_000,
      'the signed catalog to list the zone',
    );
    expect(listedAt - cooSeen, 'the new catalog waits for the hold time').toBeGreaterThanOrEqual((COO_HOLD_S - 2) * 1000);
    await eventually(
      async () =>
        new RegExp(`catz: zone '${escaped(ZONE)}' change of ownership from '${escaped(unsignedCatalog)}' to '${escaped(signedCatalog)}'`).test(bind.log())
          ? true
          : undefined,
      20_000,
      'named to log the change of ownership',
    );
    await eventually(async () => ((await servedByBind()) ? true : undefined), 30_000, 'named to serve the zone from the signed catalog');
    await untilDnssecState(lab, ZONE, 'active');
  });

  it('keeps serving the zone when the old catalog drops the member after the grace period', async (ctx) => {
    // The grace period (an hour) passed: the departure is dated back by it.
    await lab.sql.query(`UPDATE catalog_listings SET departed_at = departed_at - make_interval(secs => $1) WHERE coo_to IS NOT NULL`, [COO_GRACE_S]);
    await eventually(
      async () => {
        return lists(await catalogText(ctx, unsignedCatalog), unsignedCatalog) ? undefined : true;
      },
      20_000,
      'the unsigned catalog to drop the member',
    );
    expect(coo(await catalogText(ctx, unsignedCatalog), unsignedCatalog, signedCatalog)).toBe(false);
    // named applied the old catalog's change (its serial), and still serves the zone, signed.
    const catalogSerial = (await queryDns(dnsPort(lab), unsignedCatalog, 'SOA')).answers[0]!.serial;
    await eventually(
      async () => ((await queryDns(bindPort, unsignedCatalog, 'SOA')).answers[0]?.serial === catalogSerial ? true : undefined),
      20_000,
      'named to take the old catalog’s change',
    );
    await new Promise((r) => setTimeout(r, 2000));
    expect(await servedByBind()).toBe(true);
    const dnskey = await queryDns(bindPort, ZONE, 'DNSKEY');
    expect(dnskey.rcode).toBe(0);
    expect(dnskey.answers.length).toBeGreaterThan(0);
    expect(bind.log()).not.toMatch(new RegExp(`catz: deleting zone '${escaped(ZONE)}' from catalog '${escaped(signedCatalog)}'`));
  });
});
