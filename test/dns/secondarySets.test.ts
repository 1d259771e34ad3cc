// A secondary set's secondary is a Knot DNS (knotd) nobody here wrote: a zone of the set owner's
// subtree is NOTIFYed to it signed with the set's TSIG key (a tenant's key), and is `live` only
// once Knot serves its serial; with Knot stopped the change set stays `pushed`, the lag shows in
// /metrics and, after minutes, /healthz is degraded; started again, Knot catches up and the
// change set becomes live. The set is written straight into the database (helpers/secondarySets.ts).
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecord, createZone, type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { requireTool } from '../helpers/dnsTools.js';
import { type KnotSecondary, startKnotSecondary } from '../helpers/knot.js';
import { portOutsideEphemeralRange } from '../helpers/reservedPort.js';
import { insertSecondarySet } from '../helpers/secondarySets.js';
import { OPCODE } from '../../nameserver/types.js';
import { soaCounters } from '../../nameserver/zone/rdataFields.js';
import { type Message, parseMessage } from '../../nameserver/wire/parseMessage.js';

/** The first NOTIFY arriving on UDP 127.0.0.1:`port` after `trigger` runs (the verifier's SOA probes may come too). */
async function notifyArriving(port: number, trigger: () => void): Promise<Message> {
  const socket = dgram.createSocket('udp4');
  try {
    await new Promise<void>((resolve) => socket.bind({ address: '127.0.0.1', port }, resolve));
    const arrived = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no NOTIFY arrived')), 10_000);
      socket.on('message', (m) => {
        const message = parseMessage(m);
        if (message?.opcode !== OPCODE.NOTIFY) return;
        clearTimeout(timer);
        resolve(message);
      });
    });
    trigger();
    return await arrived;
  } finally {
    socket.close();
  }
}

const knotd = requireTool('knotd');
const ZONE = 'fleet-member.example';
const FIRST = 'fleet-first.example';
const deploymentSecret = randomBytes(32);

describe.skipIf(!knotd && process.env.REQUIRE_DNS_TOOLS !== '1')('a secondary set with Knot as its secondary', () => {
  let lab: DnsLab;
  let knot: KnotSecondary;
  let knotPort: number;
  let setId: string;

  const zone = async () => (await lab.customerA.get(`/zones/${ZONE}`)).body;
  const lagLines = async () =>
    (await lab.customerA.get('/metrics')).text.split('\n').filter((l) => l.startsWith('secondary_lag_') && l.includes(`set="${setId}"`));

  beforeAll(async () => {
    knotPort = await portOutsideEphemeralRange();
    // No DNS_SECONDARIES: Knot is known to the service only as the set's secondary. Knot
    // transfers with the deployment's key; NOTIFY comes signed with the set's key.
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker', DNS_TSIG_KEYS: `xfr.lab:${deploymentSecret.toString('base64')}` } });
    const key = await lab.customerA.post('/tsig-keys', { name: 'edge-notify.fleet.example' });
    expect(key.status, key.text).toBe(201);
    // A first zone of the customer: the catalog zone's row is copied from it.
    const first = await createZone(lab.customerA, FIRST);
    const set = await insertSecondarySet(lab.sql, {
      tenantId: lab.tokens.tenants.customers[0]!,
      name: 'edge',
      secondaries: [{ address: '127.0.0.1', port: knotPort }],
      tsigKeyId: key.body.id,
      likeZoneId: first.id,
    });
    setId = set.id;
    knot = await startKnotSecondary({
      port: async () => knotPort,
      primaryPort: lab.service.nameserver!.server.port,
      // Every zone of the owner's subtree is the set's: Knot carries both.
      zones: [ZONE, FIRST],
      key: { name: 'xfr.lab', secret: deploymentSecret },
      notifyKey: { name: key.body.name, secret: Buffer.from(key.body.secret, 'base64') },
    });
  }, 60_000);
  afterAll(async () => {
    await knot?.close();
    await lab?.close();
  });

  it('gives the running nameserver the catalog’s access list, and a change of the set’s secondaries without a restart', async () => {
    const handler = lab.service.nameserver!.server.handler;
    const listOf = () => handler.zoneAccess.all.find((l) => l.origin === 'edge.catalog.invalid');
    await eventually(async () => (listOf()?.addresses.length ? true : undefined), 10_000, 'the catalog’s access list');
    expect(listOf()).toMatchObject({ addresses: ['127.0.0.1'] });
    expect(listOf()!.transferKeyOwner).toMatch(/\S/);
    // What a PATCH of the set's secondaries commits: the row, and the notification.
    await lab.sql.query(`UPDATE secondary_sets SET secondaries = $2::jsonb WHERE id = $1`, [
      setId,
      JSON.stringify([
        { address: '127.0.0.1', port: knotPort },
        { address: '192.0.2.54', port: 53 },
      ]),
    ]);
    await lab.sql.query(`SELECT pg_notify('secondary_sets_changed', $1)`, [setId]);
    await eventually(async () => (listOf()?.addresses.length === 2 ? true : undefined), 10_000, 'the new list');
    expect(listOf()!.addresses).toEqual(['127.0.0.1', '192.0.2.54']);
    await lab.sql.query(`UPDATE secondary_sets SET secondaries = $2::jsonb WHERE id = $1`, [setId, JSON.stringify([{ address: '127.0.0.1', port: knotPort }])]);
    await lab.sql.query(`SELECT pg_notify('secondary_sets_changed', $1)`, [setId]);
    await eventually(async () => (listOf()?.addresses.length === 1 ? true : undefined), 10_000, 'the list as before');
  });

  it('NOTIFYs Knot signed with the set’s key, and the zone is live only once Knot serves its serial', async () => {
    await createZone(lab.customerA, ZONE, { records: [{ name: 'www', type: 'A', data: { address: '192.0.2.81' } }] });
    const live = await eventually(async () => ((await zone()).publication.state === 'live' ? zone() : undefined), 20_000, 'zone to be live');
    const fromKnot = await queryDns(knotPort, ZONE, 'SOA');
    expect(fromKnot.aa).toBe(true);
    expect(fromKnot.answers[0]!.serial).toBe(live.serial);
    // Knot's ACL takes NOTIFY only signed with the set's key; an unsigned one is logged as denied.
    expect(knot.log()).toMatch(/notify, incoming, remote 127\.0\.0\.1@\d+, serial/);
    expect(knot.log()).not.toMatch(/denied/i);
    // Caught up on both zones (the first one's version may have been waiting on Knot's first transfer): no lag.
    const caughtUp = `secondary_lag_serials{set="${setId}",address="127.0.0.1:${knotPort}"} 0`;
    await eventually(
      async () => {
        await lab.service.publication!.reconcile();
        return (await lagLines()).includes(caughtUp) ? true : undefined;
      },
      20_000,
      'no lag',
    );
  });

  it('with Knot stopped the change set stays pushed and the lag shows; it becomes live when Knot is back', async () => {
    await knot.stop();
    await createRecord(lab.customerA, ZONE, { name: 'later', type: 'A', data: { address: '192.0.2.82' } });
    const pushed = await eventually(
      async () => {
        const z = await zone();
        const lines = await lagLines();
        return z.publication.state === 'pushed' &&
          z.publication.waiting_on.length > 0 &&
          lines.includes(`secondary_lag_serials{set="${setId}",address="127.0.0.1:${knotPort}"} -1`)
          ? z
          : undefined;
      },
      20_000,
      'the change set pushed and the lag in /metrics',
    );
    expect(pushed.publication.state).toBe('pushed');
    // The zone's publication object names the secondary it waits on: Knot is down, so no serial.
    expect(pushed.publication.waiting_on).toEqual([{ address: `127.0.0.1:${knotPort}`, serial: null, since: expect.any(String) }]);
    const health = await lab.customerA.get('/healthz');
    expect(health.body.checks.secondaries).toBe('ok');
    // Minutes later (the service's clock), /healthz names the lagging secondaries.
    lab.clock.advance(6 * 60_000);
    const seconds = (await lagLines()).find((l) => l.startsWith('secondary_lag_seconds'))!;
    expect(Number(seconds.split(' ')[1])).toBeGreaterThanOrEqual(360);
    const degraded = await lab.customerA.get('/healthz');
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ status: 'degraded', checks: { secondaries: 'degraded' } });
    expect(degraded.body.degraded).toContain('secondaries');
    expect((await zone()).publication.state).toBe('pushed');

    // A secondary behind for more than a minute is told again (PowerDNS, say, would otherwise
    // wait for the SOA refresh): what arrives on Knot's port while it is down is that NOTIFY.
    const server = lab.service.nameserver!.server;
    const sentBefore = server.stats().notify.sent;
    const notified = await notifyArriving(knotPort, () => void lab.service.nameserver!.renotifyLagging());
    // A NOTIFY newly sent (a retry of the first one, still running, counts no send).
    expect(server.stats().notify.sent).toBeGreaterThan(sentBefore);
    expect(notified.opcode).toBe(OPCODE.NOTIFY);
    expect(notified.questions[0]!.name.toLowerCase()).toBe(ZONE);
    expect(soaCounters(notified.answer[0]!.rdata).serial).toBe(pushed.serial);
    expect(notified.tsig?.keyName).toBe('edge-notify.fleet.example');

    // Knot starts again, asks the primary for the SOA, transfers; the next verification sees it.
    await knot.restart();
    const live = await eventually(
      async () => {
        await lab.service.publication!.reconcile();
        const z = await zone();
        return z.publication.state === 'live' ? z : undefined;
      },
      30_000,
      'zone to be live again',
    );
    expect((await queryDns(knotPort, ZONE, 'SOA')).answers[0]!.serial).toBe(live.serial);
    expect(live.publication.waiting_on).toEqual([]);
    expect(await lagLines()).toContain(`secondary_lag_seconds{set="${setId}",address="127.0.0.1:${knotPort}"} 0`);
    expect((await lab.customerA.get('/healthz')).body.checks.secondaries).toBe('ok');
  });
});
