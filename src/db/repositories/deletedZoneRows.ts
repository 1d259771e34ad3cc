// The `deleted_zone_exports` table: its row type and the one mapper to the domain's kept export.
export interface DeletedZone {
  id: string;
  zoneName: string;
  tenantId: string;
  deletedAt: Date;
  expiresAt: Date;
  zonefile: string;
}

export interface DeletedZoneRow {
  id: string;
  zone_name: string;
  tenant_id: string;
  deleted_at: Date;
  expires_at: Date;
  zonefile: string;
}

export const deletedZoneToDomain = (r: DeletedZoneRow): DeletedZone => ({
  id: r.id,
  zoneName: r.zone_name,
  tenantId: r.tenant_id,
  deletedAt: r.deleted_at,
  expiresAt: r.expires_at,
  zonefile: r.zonefile,
});
