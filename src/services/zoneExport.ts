// A zone in RFC 1035 master-file format, as stored: absolute names, $TTL for the zone default.
import type { RecordRow } from '../db/repositories/recordRows.js';
import type { Zone } from '../domain/model/zone.js';
import type { ScopedDb } from '../db/tenantScope.js';
import { absoluteName } from '../domain/names.js';

const TYPE_ORDER = ['SOA', 'NS'];

export async function exportZoneFile(scoped: ScopedDb, zone: Zone, options: { includeSystem: boolean }): Promise<string> {
  const q = scoped.from('records').where('zone_id', zone.id).orderBy(['name_sort', 'type', 'content']);
  if (!options.includeSystem) q.where('system', false);
  const rows = (await q) as RecordRow[];
  // The SOA first (RFC 1035 §5.2), then the apex NS set, then everything in list order.
  rows.sort((a, b) => rank(a) - rank(b));
  // Records that follow the zone default carry no TTL and take $TTL (RFC 2308 §4), so an
  // import of this file keeps them following the default.
  const lines = rows.map((r) => `${absoluteName(r.name, zone.name)}.\t${r.ttl === null ? '' : r.ttl}\tIN\t${r.type}\t${r.content}`);
  return `; ${zone.name} exported by the managed DNS service\n$TTL ${zone.defaultTtl}\n${lines.join('\n')}\n`;
}

function rank(r: RecordRow): number {
  if (!r.system) return 10;
  const i = TYPE_ORDER.indexOf(r.type);
  return i === -1 ? 9 : i;
}
