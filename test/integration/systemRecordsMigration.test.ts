// Upgrading to rendered system records (migration 20261124000300): a zone published by the
// earlier build — stored SOA and NS rows, zones.serial, served records in presentation form —
// is built again, whole, when the service starts, and served with a later serial, its own
// records and the apex NS set of NAMESERVERS.
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/knex.js';
import { type DnsLab, startDnsLab } from '../helpers/dnsLab.js';
import { eventually, queryDns } from '../helpers/dnsQuery.js';
import { createDatabase } from '../helpers/testService.js';

const OLD_SERIAL = 2026010105;
const ZONE = 'upgraded.example';

async function databaseBeforeTheMigration(): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = await createDatabase({ migrated: false });
  const db = createDb(database.url);
  // The four migrations before 20261124000100 (row versions, then the rest).
  for (let i = 0; i < 4; i++) await db.migrate.up();
  const soa = { mname: 'ns1.lab-dns.test', rname: 'hostmaster.old\\.example', serial: OLD_SERIAL, refresh: 10800, retry: 3600, expire: 1209600, minimum: 300 };
  const rows = [
    { id: 'rec_oldsoa', name: '@', type: 'SOA', data: soa, content: 'x', system: true },
    { id: 'rec_oldns1', name: '@', type: 'NS', data: { nameserver: 'ns1.lab-dns.test' }, content: 'ns1.lab-dns.test.', system: true },
    { id: 'rec_oldns2', name: '@', type: 'NS', data: { nameserver: 'ns-gone.lab-dns.test' }, content: 'ns-gone.lab-dns.test.', system: true },
    { id: 'rec_oldwww', name: 'www', type: 'A', data: { address: '192.0.2.44' }, content: '192.0.2.44', system: false },
  ];
  await db('tenants').insert({
    id: 'ten_upgraded',
    type: 'customer',
    name: 'Upgraded',
    path: ['ten_upgraded'],
    api_rate_limit_per_minute: 1000,
    max_zones: 10,
  });
  const now = new Date();
  await db('zones').insert({
    id: 'zon_upgraded',
    tenant_id: 'ten_upgraded',
    name: ZONE,
    kind: 'forward',
    status: 'active',
    default_ttl: 3600,
    soa_email: 'hostmaster@old.example',
    serial: OLD_SERIAL,
    published_serial: OLD_SERIAL,
    changeset_seq: 0,
    published_seq: 0,
    record_count: 4,
    created_at: now,
    updated_at: now,
  });
  await db('records').insert(
    rows.map((r) => ({
      ...r,
      zone_id: 'zon_upgraded',
      tenant_id: 'ten_upgraded',
      name_sort: r.name === '@' ? '' : r.name,
      data: JSON.stringify(r.data),
      last_changeset_id: 'chg_old',
      created_at: now,
      updated_at: now,
    })),
  );
  await db('published_records').insert(
    rows.map((r) => ({ zone_id: 'zon_upgraded', record_id: r.id, name: r.name, type: r.type, ttl: 3600, data: JSON.stringify(r.data) })),
  );
  await db('zone_versions').insert({
    zone_id: 'zon_upgraded',
    serial: OLD_SERIAL,
    from_serial: null,
    removed: '[]',
    added: JSON.stringify(rows.map((r) => ({ name: r.name, type: r.type, ttl: 3600, data: r.data }))),
    created_at: now,
  });
  await db.destroy();
  return database;
}

describe('upgrading a published zone to rendered system records', () => {
  let lab: DnsLab | null = null;
  let drop = async () => {};
  afterAll(async () => {
    await lab?.close();
    await drop();
  });

  it('builds it again whole at start: a later serial, its records, the NS set of NAMESERVERS, record_count of the stored rows', async () => {
    const database = await databaseBeforeTheMigration();
    drop = database.drop;
    lab = await startDnsLab({ env: { ROLES: 'api,nameserver,worker' }, databaseUrl: database.url });
    const port = lab.service.nameserver!.server.port;

    const soa = await eventually(
      async () => {
        const reply = await queryDns(port, ZONE, 'SOA', { timeoutMs: 500 }).catch(() => null);
        return reply?.rcode === 0 && reply.answers[0] ? reply.answers[0] : undefined;
      },
      15_000,
      'the upgraded zone served',
    );
    expect(soa.serial).toBeGreaterThan(OLD_SERIAL);
    expect((await queryDns(port, ZONE, 'NS')).answers.map((a) => a.ns).sort()).toEqual(['ns1.lab-dns.test', 'ns2.lab-dns.test']);
    expect((await queryDns(port, `www.${ZONE}`, 'A')).answers.map((a) => a.address)).toEqual(['192.0.2.44']);

    const stored = await lab.sql.query(`SELECT id FROM records WHERE zone_id = 'zon_upgraded'`);
    expect(stored.rows).toEqual([{ id: 'rec_oldwww' }]);
    const zone = await lab.sql.query(`SELECT record_count, published_serial FROM zones WHERE id = 'zon_upgraded'`);
    expect(zone.rows[0]).toEqual({ record_count: 1, published_serial: soa.serial });
    const version = await lab.sql.query(`SELECT from_serial, nameservers FROM zone_versions WHERE zone_id = 'zon_upgraded' AND serial = $1`, [soa.serial]);
    expect(version.rows).toEqual([{ from_serial: null, nameservers: ['ns1.lab-dns.test', 'ns2.lab-dns.test'] }]);
  });
});
