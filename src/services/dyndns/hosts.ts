// DynDNS hosts (docs/dyndns.md): create, list, read, delete and rotate. A host is a name in one
// of the tenant's forward zones; its A and AAAA are ordinary records of the zone, written by
// GET /nic/update (nicUpdate.ts) and, when given at creation, here: every record write is a
// change set through the zone-write seam, with the host as the records' keeper (records.managed_by,
// docs/records.md "Managed records"): the record API cannot change them.
import type { Config } from '../../config/index.js';
import type { DbContext } from '../../db/context.js';
import {
  addressTypesAt,
  type DyndnsHost,
  deleteDyndnsHost,
  dyndnsHostAt,
  dyndnsHostInScope,
  insertDyndnsHost,
  pageDyndnsHosts,
  setDyndnsHostPassword,
} from '../../db/repositories/dyndnsHostRows.js';
import { DomainError, notFound, validationFailed, type FieldError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { type Address, AddressError, formatAddress, parseAddress } from '../../domain/ip/address.js';
import type { Zone } from '../../domain/model/zone.js';
import { NameError, normalizeOwner } from '../../domain/names.js';
import { recordAudit } from '../../db/repositories/auditLog.js';
import { applyChangeSet } from '../changeSets.js';
import type { WriteContext } from '../writeContext.js';
import { zoneNameFromPath } from '../../domain/zoneName.js';
import { writeZone } from '../zoneWrite.js';
import { generatePassword, hashPassword } from './credentials.js';

/** TTL of a host's records unless chosen: short, so a new address is seen within a minute (docs/dyndns.md). */
export const DEFAULT_DYNDNS_TTL = 60;

export interface HostCreate {
  zone: string;
  name: string;
  ttl?: number;
  ipv4?: string | null;
  ipv6?: string | null;
}

export interface HostWithPassword {
  host: DyndnsHost;
  password: string;
}

export async function getHost(ctx: DbContext, id: string): Promise<DyndnsHost> {
  const host = await dyndnsHostInScope(ctx.scoped, ctx.db, id);
  if (!host) throw notFound('DynDNS host');
  return host;
}

export async function listHosts(ctx: DbContext, filter: { zone?: string }, after: unknown[] | null, limit: number) {
  const zoneName = filter.zone === undefined ? undefined : (zoneNameFromPath(filter.zone) ?? '');
  return pageDyndnsHosts(ctx.scoped, ctx.db, zoneName, after, limit);
}

/** The address of a family given at creation, or a field error. */
function addressField(value: string | null | undefined, family: 4 | 6, pointer: string, errors: FieldError[]): Address | null {
  if (value === undefined || value === null) return null;
  try {
    const a = parseAddress(value);
    if (a.family === family) return a;
    errors.push({ pointer, code: 'wrong_family', detail: `"${value}" is an IPv${a.family} address; give an IPv${family} address here.` });
  } catch (e) {
    if (!(e instanceof AddressError)) throw e;
    errors.push({ pointer, code: e.code, detail: e.message });
  }
  return null;
}

/** The replace_rrset items that give the host these addresses (null: leave that family as it is; []: none). */
export const addressChanges = (name: string, ttl: number, ipv4: Address[] | null, ipv6: Address[] | null) => [
  ...(ipv4 ? [{ op: 'replace_rrset' as const, name, type: 'A', ttl, records: ipv4.map((a) => ({ address: formatAddress(a) })) }] : []),
  ...(ipv6 ? [{ op: 'replace_rrset' as const, name, type: 'AAAA', ttl, records: ipv6.map((a) => ({ address: formatAddress(a) })) }] : []),
];

export async function createHost(ctx: WriteContext, config: Config, input: HostCreate): Promise<HostWithPassword> {
  const errors: FieldError[] = [];
  const ipv4 = addressField(input.ipv4, 4, '/ipv4', errors);
  const ipv6 = addressField(input.ipv6, 6, '/ipv6', errors);
  if (errors.length) throw validationFailed(errors);
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  return writeZone(ctx, config, input.zone, {}, async (zone) => {
    const name = ownerOf(input.name, zone);
    if (zone.kind !== 'forward') {
      throw validationFailed([{ pointer: '/zone', code: 'zone_kind', detail: `${zone.name} is a reverse zone; DynDNS hosts live in forward zones.` }]);
    }
    if (zone.status === 'deleting') throw new DomainError('conflict', { reason: 'zone_being_deleted', zone: zone.name });
    if (await dyndnsHostAt(ctx.db, zone.id, name)) {
      throw new DomainError('conflict', { reason: 'dyndns_host_exists', name });
    }
    // A host owns its name's address records: it does not take over records written otherwise,
    // and a CNAME there would leave no room for them (RFC 1034 §3.6.2).
    const taken = await addressTypesAt(ctx.db, zone.id, name);
    if (taken.length)
      throw new DomainError('conflict', {
        reason: 'dyndns_name_in_use',
        name,
        types: taken.sort().join(', '),
      });
    const now = ctx.clock.now();
    const id = newId('dyn');
    const ttl = input.ttl ?? DEFAULT_DYNDNS_TTL;
    await insertDyndnsHost(ctx.scoped, {
      id,
      tenant_id: zone.tenantId,
      zone_id: zone.id,
      name,
      ttl,
      password_hash: passwordHash,
      created_at: now,
      updated_at: now,
    });
    await auditHost(ctx, now, 'dyndns_host.created', id, zone.tenantId, { zone: zone.name, name });
    const changes = addressChanges(name, ttl, ipv4 ? [ipv4] : null, ipv6 ? [ipv6] : null);
    if (changes.length)
      await applyChangeSet(
        ctx,
        zone,
        { changes, comment: `DynDNS host ${name} created` },
        { kind: 'records', locate: (_i, inner) => ({ pointer: inner }), manager: id },
      );
    return { host: await getHost(ctx, id), password };
  });
}

function ownerOf(input: string, zone: Zone): string {
  try {
    const name = normalizeOwner(input, zone.name);
    if (name.split('.')[0] === '*') throw new NameError('invalid_wildcard', 'A DynDNS host cannot be a wildcard name.');
    return name;
  } catch (e) {
    if (!(e instanceof NameError)) throw e;
    throw validationFailed([{ pointer: '/name', code: e.code, detail: e.message }]);
  }
}

/** A host's audit entry: under the host's tenant, which a reseller acting above it may not be. */
const auditHost = (
  ctx: WriteContext,
  now: Date,
  action: `dyndns_host.${'created' | 'deleted' | 'password_rotated'}`,
  id: string,
  tenantId: string,
  details: { zone: string; name: string },
) => recordAudit(ctx.db, ctx.actor, now, { action, targetType: 'dyndns_host', targetId: id, details, tenantId });

/** Finds a host of the acting subtree and runs `write` with its zone locked (the write seam). */
async function writeHost<T>(ctx: WriteContext, config: Config, id: string, write: (host: DyndnsHost, zone: Zone) => Promise<T>): Promise<T> {
  const found = await getHost(ctx, id);
  return writeZone(ctx, config, found.zoneName, {}, async (zone) => {
    // Re-read under the zone's lock: a concurrent delete may have taken it.
    const host = await getHost(ctx, id);
    return write(host, zone);
  });
}

/** Removes the host and its address records (one change set when it had any). */
export const deleteHost = (ctx: WriteContext, config: Config, id: string): Promise<void> =>
  writeHost(ctx, config, id, async (host, zone) => {
    if (zone.status !== 'deleting') {
      await applyChangeSet(
        ctx,
        zone,
        { changes: addressChanges(host.name, host.ttl, [], []), comment: `DynDNS host ${host.name} deleted` },
        { kind: 'records', skipWhenUnchanged: true, manager: host.id },
      );
    }
    await deleteDyndnsHost(ctx.scoped, id);
    await auditHost(ctx, ctx.clock.now(), 'dyndns_host.deleted', id, host.tenantId, { zone: zone.name, name: host.name });
  });

/** A new password; the old one stops working with this commit (credentials.ts). */
export async function rotatePassword(ctx: WriteContext, id: string): Promise<HostWithPassword> {
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const updated = await setDyndnsHostPassword(ctx.scoped, id, passwordHash, ctx.clock.now());
  if (!updated) throw notFound('DynDNS host');
  const host = await getHost(ctx, id);
  await auditHost(ctx, ctx.clock.now(), 'dyndns_host.password_rotated', id, host.tenantId, { zone: host.zoneName, name: host.name });
  return { host, password };
}
