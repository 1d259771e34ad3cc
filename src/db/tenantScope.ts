// The one place that confines queries to a tenant subtree. Repositories of tenant-owned data are
// only ever handed a ScopedDb, never the raw Knex instance, so a query cannot forget the filter.
import type { Knex } from 'knex';
import { DomainError } from '../domain/errors.js';
import { ACTING_TENANT_EVENT_KINDS } from '../domain/model/events.js';

/** Tenant-owned tables and the column that names the owning tenant. */
export const TENANT_OWNED = {
  tenants: 'id',
  users: 'tenant_id',
  api_clients: 'tenant_id',
  api_tokens: 'tenant_id',
  audit_log: 'tenant_id',
  zones: 'tenant_id',
  records: 'tenant_id',
  change_sets: 'tenant_id',
  deleted_zone_exports: 'tenant_id',
  templates: 'tenant_id',
  prefixes: 'tenant_id',
  ip_assignments: 'tenant_id',
  dyndns_hosts: 'tenant_id',
  webhooks: 'tenant_id',
  events: 'tenant_id',
  tsig_keys: 'tenant_id',
  secondary_sets: 'tenant_id',
} as const satisfies Record<string, string>;

export type TenantOwnedTable = keyof typeof TENANT_OWNED;

type Runner = Knex | Knex.Transaction;

export class ScopedDb {
  constructor(
    private readonly runner: Runner,
    /** Root of the visible subtree: the acting tenant. */
    readonly rootTenantId: string,
    /**
     * The zones a credential policy confines the request to (docs/credentials.md), by name; null:
     * every zone of the subtree. Zone lookups and the zone list apply it (src/services/zoneReads.ts).
     */
    readonly zoneNames: readonly string[] | null = null,
  ) {}

  /** Subquery of the ids of every tenant in the subtree (the root included). */
  subtreeIds(): Knex.QueryBuilder {
    return this.runner('tenants').select('id').whereRaw('path @> ARRAY[?]::text[]', [this.rootTenantId]);
  }

  /** A query builder on `table` (optionally aliased "table as t") restricted to the subtree. */
  from(table: TenantOwnedTable, alias?: string): Knex.QueryBuilder {
    const ref = alias ?? table;
    const qb = this.runner(alias ? `${table} as ${alias}` : table);
    if (table === 'tenants') return qb.whereRaw(`${ref}.path @> ARRAY[?]::text[]`, [this.rootTenantId]);
    if (table === 'events') {
      // An event is also of the tenant a write into another's zone was made for (a customer's PTR
      // in the provider's reverse zones): its webhooks receive it (docs/webhooks.md "Ownership"),
      // so whatever reads events through the scope sees the same.
      return qb.where((q) =>
        q
          .whereIn(`${ref}.tenant_id`, this.subtreeIds())
          .orWhere((acting) =>
            acting
              .whereIn(`${ref}.kind`, ACTING_TENANT_EVENT_KINDS)
              .whereRaw(`(${ref}.payload->>'acting_tenant_id') IN (SELECT id FROM tenants WHERE path @> ARRAY[?]::text[])`, [this.rootTenantId]),
          ),
      );
    }
    return qb.whereIn(`${ref}.${TENANT_OWNED[table]}`, this.subtreeIds());
  }

  /**
   * Inserts rows after checking that every owning tenant lies inside the subtree (for a new
   * tenant: its parent).
   */
  async insert<Row extends Record<string, unknown>>(table: TenantOwnedTable, rows: Row | Row[]) {
    const list = Array.isArray(rows) ? rows : [rows];
    const ownerColumn = table === 'tenants' ? 'parent_id' : TENANT_OWNED[table];
    const owners = [...new Set(list.map((r) => String(r[ownerColumn])))];
    await this.assertInSubtree(owners);
    return this.runner(table).insert(list).returning('*');
  }

  async assertInSubtree(tenantIds: string[]): Promise<void> {
    // The root is in its own subtree: most writes are the acting tenant's own, and need no query.
    tenantIds = tenantIds.filter((id) => id !== this.rootTenantId);
    if (tenantIds.length === 0) return;
    const found = await this.from('tenants').whereIn('id', tenantIds).count<{ count: number }[]>({ count: '*' });
    if (Number(found[0]?.count) !== tenantIds.length) {
      // An object outside the subtree is indistinguishable from one that does not exist.
      throw new DomainError('not_found', { resource: 'tenant' });
    }
  }

  /**
   * Rows of `table` owned by the acting tenant's ancestors (and itself): definitions that flow
   * down the tree, such as a reseller's templates, which its customers may use but not change.
   */
  fromAncestry(table: 'templates', ancestry: string[]): Knex.QueryBuilder {
    if (!ancestry.includes(this.rootTenantId)) throw new Error('the ancestry must end in the acting tenant');
    return this.runner(table).whereIn(`${table}.tenant_id`, ancestry);
  }

  /** The same scope over another runner (a transaction). */
  within(runner: Runner): ScopedDb {
    return new ScopedDb(runner, this.rootTenantId, this.zoneNames);
  }
}
