// Rows of dyndns_hosts (migration 20261125000800) with the zone's name and the host's current
// addresses (its A and AAAA records), mapped to what the DynDNS services work with.
import type { Knex } from 'knex';
import type { Runner, Transaction } from '../context.js';
import { countRows } from '../count.js';
import { paginate } from '../paginate.js';
import { PREPARED } from '../preparedStatements.js';
import type { ScopedDb } from '../tenantScope.js';
import { chainFromJson } from './identityStore.js';
import type { Tenant } from './tenantRows.js';

export interface DyndnsHostRow {
  id: string;
  tenant_id: string;
  zone_id: string;
  zone_name: string;
  zone_status: string;
  name: string;
  ttl: number;
  password_hash: string;
  created_at: Date;
  updated_at: Date;
  last_update_at: Date | null;
  last_update_ip: string | null;
  last_update_client: string | null;
  ipv4: string | null;
  ipv6: string | null;
}

export interface DyndnsHost {
  id: string;
  tenantId: string;
  zoneId: string;
  zoneName: string;
  zoneStatus: string;
  /** Owner relative to the zone, '@' the apex. */
  name: string;
  /** The host's name, absolute, without the final dot. */
  fqdn: string;
  ttl: number;
  passwordHash: string;
  ipv4: string | null;
  ipv6: string | null;
  lastUpdate: { at: Date; ip: string | null; client: string | null } | null;
  createdAt: Date;
  updatedAt: Date;
}

const hostFqdn = (name: string, zone: string) => (name === '@' ? zone : `${name}.${zone}`);

const dyndnsHostToDomain = (r: DyndnsHostRow): DyndnsHost => ({
  id: r.id,
  tenantId: r.tenant_id,
  zoneId: r.zone_id,
  zoneName: r.zone_name,
  zoneStatus: r.zone_status,
  name: r.name,
  fqdn: hostFqdn(r.name, r.zone_name),
  ttl: r.ttl,
  passwordHash: r.password_hash,
  ipv4: r.ipv4,
  ipv6: r.ipv6,
  lastUpdate: r.last_update_at ? { at: r.last_update_at, ip: r.last_update_ip, client: r.last_update_client } : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * The host's address of one type: its A (AAAA) record, the one it keeps (records.managed_by). A
 * host keeps at most one of each (its writes replace the RRset).
 */
const addressOf = (db: Knex | Knex.Transaction, type: 'A' | 'AAAA') =>
  db.raw(`(SELECT r.data->>'address' FROM records r WHERE r.managed_by = h.id AND r.type = ? ORDER BY r.id LIMIT 1) AS ${type === 'A' ? 'ipv4' : 'ipv6'}`, [
    type,
  ]);

/** Hosts (aliased `h`) with their zone's name and status and their current addresses; `from` is the scoped or plain table. */
const withHostDetails = (db: Knex | Knex.Transaction, from: Knex.QueryBuilder): Knex.QueryBuilder =>
  from.join('zones as z', 'z.id', 'h.zone_id').select('h.*', 'z.name as zone_name', 'z.status as zone_status', addressOf(db, 'A'), addressOf(db, 'AAAA'));

/** The hosts of the subtree, and how many of them have an address now (GET /stats). */
export async function dyndnsHostCounts(scoped: ScopedDb): Promise<{ hosts: number; withAddress: number }> {
  const hosts = scoped.from('dyndns_hosts', 'h');
  const withAddress = scoped.from('dyndns_hosts', 'h').whereExists((q) => q.from('records as r').whereRaw('r.managed_by = h.id'));
  return { hosts: await countRows(hosts), withAddress: await countRows(withAddress) };
}

/**
 * The host named by a router's username, with its tenant and that tenant's ancestors (root
 * first), in one round trip: this runs for every request a router makes.
 */
export async function dyndnsHostWithChain(db: Runner, id: string): Promise<{ host: DyndnsHost; chain: Tenant[] } | null> {
  const row = (await withHostDetails(db, db('dyndns_hosts as h'))
    .select(db.raw('(SELECT jsonb_agg(to_jsonb(a.*)) FROM tenants t JOIN tenants a ON a.id = ANY (t.path) WHERE t.id = h.tenant_id) AS chain'))
    .where('h.id', id)
    .first()
    .options(PREPARED)) as (DyndnsHostRow & { chain: Record<string, unknown>[] | null }) | undefined;
  if (!row) return null;
  const host = dyndnsHostToDomain(row);
  return { host, chain: chainFromJson(host.tenantId, row.chain) };
}

/** Notes a router's update on its host; false when the host is gone from that zone (deleted under the same lock). */
export async function markDyndnsHostUpdated(
  trx: Transaction,
  hostId: string,
  zoneId: string,
  update: { ip: string | null; client: string | null },
  now: Date,
): Promise<boolean> {
  const kept = await trx('dyndns_hosts')
    .where({ id: hostId, zone_id: zoneId })
    .update({ last_update_at: now, last_update_ip: update.ip, last_update_client: update.client, updated_at: now });
  return kept > 0;
}

const hostsInScope = (scoped: ScopedDb, db: Runner) => withHostDetails(db, scoped.from('dyndns_hosts', 'h'));

/** A host of the subtree with its zone and addresses; undefined when there is none. */
export async function dyndnsHostInScope(scoped: ScopedDb, db: Runner, id: string): Promise<DyndnsHost | undefined> {
  const row = (await hostsInScope(scoped, db).where('h.id', id).first()) as DyndnsHostRow | undefined;
  return row ? dyndnsHostToDomain(row) : undefined;
}

/** A page of the subtree's hosts by id, of one zone when `zoneName` is given. */
export async function pageDyndnsHosts(scoped: ScopedDb, db: Runner, zoneName: string | undefined, after: unknown[] | null, limit: number) {
  const q = hostsInScope(scoped, db);
  if (zoneName !== undefined) q.where('z.name', zoneName);
  const page = await paginate<DyndnsHostRow & Record<string, unknown>>(q, [{ column: 'h.id', direction: 'asc', field: 'id' }], after, limit);
  return { items: page.rows.map(dyndnsHostToDomain), next: page.next };
}

/** Whether a host is at this owner name of the zone. */
export async function dyndnsHostAt(trx: Transaction, zoneId: string, name: string): Promise<boolean> {
  return Boolean(await trx('dyndns_hosts').where({ zone_id: zoneId, name }).first('id'));
}

/** The address-bearing types (A, AAAA, CNAME) stored at an owner name of the zone. */
export async function addressTypesAt(trx: Transaction, zoneId: string, name: string): Promise<string[]> {
  const rows = (await trx('records').where({ zone_id: zoneId, name }).whereIn('type', ['A', 'AAAA', 'CNAME']).distinct('type')) as { type: string }[];
  return rows.map((r) => r.type);
}

export type NewDyndnsHost = {
  id: string;
  tenant_id: string;
  zone_id: string;
  name: string;
  ttl: number;
  password_hash: string;
  created_at: Date;
  updated_at: Date;
};

/** Inserts a host after checking that its tenant lies in the subtree. */
export async function insertDyndnsHost(scoped: ScopedDb, host: NewDyndnsHost): Promise<void> {
  await scoped.insert('dyndns_hosts', host);
}

export async function deleteDyndnsHost(scoped: ScopedDb, id: string): Promise<void> {
  await scoped.from('dyndns_hosts').where('id', id).delete();
}

/** Sets a host's password hash; false when the subtree has no such host. */
export async function setDyndnsHostPassword(scoped: ScopedDb, id: string, passwordHash: string, now: Date): Promise<boolean> {
  return (await scoped.from('dyndns_hosts').where('id', id).update({ password_hash: passwordHash, updated_at: now })) > 0;
}
