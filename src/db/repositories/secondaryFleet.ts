// The secondary sets as the serving side reads them (docs/catalog-zones.md): which sets carry a
// zone (NOTIFY to their secondaries, ask them before `live`), and who may read each catalog zone
// (the nameserver's access lists). A set carries the zones it selects (catalogMembers.ts
// memberOfSetSql), and its own catalog zone; catalog and lab parent zones are members of no set.
import { DEFAULT_SECONDARY_PORT, type Secondary } from '../../domain/secondarySets.js';
import { SECONDARY_SETS_CHANNEL } from '../channels.js';
import { memberOfSetSql } from './catalogMembers.js';
import type { Runner, Transaction } from '../context.js';
import { PREPARED } from '../preparedStatements.js';

/** A set that carries a zone: its secondaries and the TSIG key (id) they transfer and are told with. */
export interface CarryingSet {
  id: string;
  secondaries: Secondary[];
  tsigKeyId: string | null;
  /** The zone is this set's catalog (not a member): NOTIFYed to its secondaries, not verified there. */
  ownCatalog: boolean;
}

/** Who may read a catalog zone: its set's secondaries (none when no set names it) and the set's key. */
export interface CatalogAccessRow {
  zoneName: string;
  addresses: string[];
  tsigKeyId: string | null;
}

/** A set's `secondaries` column as stored (jsonb), the port defaulted. */
export const secondariesOf = (value: unknown): Secondary[] =>
  (Array.isArray(value) ? value : []).map((s: { address: string; port?: number }) => ({ address: s.address, port: s.port ?? DEFAULT_SECONDARY_PORT }));

/** The sets carrying zone `zoneId`, by id. */
export async function setsCarryingZone(db: Runner, zoneId: string): Promise<CarryingSet[]> {
  const result = await db
    .raw<{ rows: { id: string; secondaries: unknown; tsig_key_id: string | null; own_catalog: boolean }[] }>(
      `SELECT s.id, s.secondaries, s.tsig_key_id, s.catalog_zone_id = z.id AS own_catalog
       FROM zones z
       JOIN secondary_sets s ON s.catalog_zone_id = z.id OR ${memberOfSetSql('z', 's')}
       WHERE z.id = ?
       ORDER BY s.id`,
      [zoneId],
    )
    .options(PREPARED);
  return result.rows.map((r) => ({
    id: r.id,
    secondaries: secondariesOf(r.secondaries),
    tsigKeyId: r.tsig_key_id,
    ownCatalog: r.own_catalog,
  }));
}

/** A secondary of a set, to be asked about a zone (host and port, as HostPort). */
export interface FleetServer {
  setId: string;
  host: string;
  port: number;
}

/**
 * The secondaries of every set carrying zone `zoneId` as a member: those asked before a version is
 * `live` and before a DS goes up. Not a set's own catalog: its consumers need not answer for it
 * (Knot, interpreting a catalog, answers no SOA for it); what they make of it shows in its members.
 */
export async function fleetServing(db: Runner, zoneId: string): Promise<FleetServer[]> {
  const sets = (await setsCarryingZone(db, zoneId)).filter((set) => !set.ownCatalog);
  return sets.flatMap((set) => set.secondaries.map((s) => ({ setId: set.id, host: s.address, port: s.port })));
}

/** Every catalog zone with who may read it, by zone name. */
export async function catalogAccessRows(db: Runner): Promise<CatalogAccessRow[]> {
  const rows = (await db('zones as z')
    .leftJoin('secondary_sets as s', 's.catalog_zone_id', 'z.id')
    .where('z.kind', 'catalog')
    .select('z.name', 's.secondaries', 's.tsig_key_id')
    .orderBy('z.name')) as { name: string; secondaries: unknown; tsig_key_id: string | null }[];
  return rows.map((r) => ({ zoneName: r.name, addresses: secondariesOf(r.secondaries).map((s) => s.address), tsigKeyId: r.tsig_key_id }));
}

/** Tells the nameservers (on commit) that set `id` changed: they read the catalogs' access lists again. */
export const notifySecondarySetsChanged = async (trx: Transaction, id: string): Promise<void> => {
  await trx.raw('SELECT pg_notify(?, ?)', [SECONDARY_SETS_CHANNEL, id]);
};
