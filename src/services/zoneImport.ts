// Zone-file import: the parsed file becomes one change set through the same engine as every
// other write (spec "Import rules").
import type { DbContext } from '../db/context.js';
import type { Config } from '../config/index.js';
import type { Zone } from '../domain/model/zone.js';
import { relativeName } from '../../nameserver/wire/name.js';
import type { ChangeItem, ChangeSetPlan, Warning } from '../domain/changeSets/planChangeSet.js';
import { DomainError, type FieldError } from '../domain/errors.js';
import { parseRecordData } from '../domain/records/parseRecordData.js';
import { isValidTtl, TTL_BOUNDS } from '../domain/records/ttl.js';
import { ruleOf } from '../domain/records/types.js';
import { type SkippedEntry, parseZoneFile, type ZoneFileEntry } from '../domain/zonefile/parseZoneFile.js';
import type { ChangeSet } from '../domain/model/changeSet.js';
import { applyChangeSet } from './changeSets.js';
import { zoneRecordRows } from '../db/repositories/zoneQueries.js';
import type { WriteContext } from './writeContext.js';
import { writeZone } from './zoneWrite.js';
import type { RecordRow } from '../db/repositories/recordRows.js';

/** Spec: "Maximum file size 1 MiB (413 above)". */
export const MAX_ZONEFILE_BYTES = 1024 * 1024;

export interface ImportRequest {
  zonefile: string;
  mode: 'merge' | 'replace';
  dryRun: boolean;
}

export interface ImportResult {
  zone: Zone;
  changeSet: ChangeSet | null;
  plan: ChangeSetPlan;
  skipped: SkippedEntry[];
  /** Records of the file already in the zone (merge leaves them alone). */
  unchanged: number;
}

const lineError = (line: number, code: string, detail: string): FieldError => ({ pointer: '/zonefile', line, code, detail });

interface DesiredRRset {
  name: string;
  type: string;
  ttl: number | null;
  lines: number[];
  datas: Record<string, unknown>[];
  contents: string[];
}

/**
 * Cloudflare's exports write TTL 1 for its "automatic" TTL (the provider picks it). Below our
 * minimum it could never be stored; it becomes what "automatic" is here: the zone's default.
 */
const AUTOMATIC_TTL = 1;

/**
 * TTL of an entry as stored: an explicit TTL as written; a $TTL equal to the zone default becomes
 * `null` (follow the default), so our own export imports back without a diff; Cloudflare's
 * automatic TTL follows the default too.
 */
function storedTtl(e: ZoneFileEntry, zone: Zone): number | null {
  if (e.ttl === null || e.ttl === AUTOMATIC_TTL) return null;
  if (e.ttlSource === 'directive' && e.ttl === zone.defaultTtl) return null;
  return e.ttl;
}

function desiredRRsets(entries: ZoneFileEntry[], zone: Zone): { rrsets: DesiredRRset[]; errors: FieldError[]; warnings: Warning[] } {
  const errors: FieldError[] = [];
  const byKey = new Map<string, DesiredRRset>();
  const automatic: number[] = [];
  for (const e of entries) {
    if (e.ttl === AUTOMATIC_TTL) automatic.push(e.line);
    const parsed = parseRecordData(e.type, e.data);
    if (!parsed.ok) {
      for (const p of parsed.errors) errors.push(lineError(e.line, p.code, `${e.type} ${p.pointer ? `${p.pointer.slice(1)}: ` : ''}${p.detail}`));
      continue;
    }
    const ttl = storedTtl(e, zone);
    if (ttl !== null && !isValidTtl(ttl)) {
      errors.push(lineError(e.line, 'ttl_out_of_range', `TTL ${ttl} is outside ${TTL_BOUNDS.min}–${TTL_BOUNDS.max} seconds.`));
      continue;
    }
    const name = relativeName(e.owner, zone.name);
    const key = `${name}\u0000${e.type}`;
    const content = ruleOf(e.type).presentation(parsed.data);
    const rrset = byKey.get(key) ?? { name, type: e.type, ttl, lines: [], datas: [], contents: [] };
    if (rrset.lines.length && rrset.ttl !== ttl) {
      errors.push(
        lineError(
          e.line,
          'rrset_ttl_conflict',
          `${e.owner} ${e.type} has TTL ${rrset.ttl ?? 'default'} on line ${rrset.lines[0]}; one RRset has one TTL (RFC 2181 §5.2).`,
        ),
      );
      continue;
    }
    if (rrset.contents.includes(content)) continue; // the same record twice in a file is one record
    rrset.lines.push(e.line);
    rrset.datas.push(parsed.data);
    rrset.contents.push(content);
    byKey.set(key, rrset);
  }
  const warnings: Warning[] = automatic.length
    ? [
        {
          code: 'ttl_automatic',
          detail: `Line${automatic.length > 1 ? 's' : ''} ${automatic.join(', ')}: TTL 1 (Cloudflare's "automatic") follows the zone's default TTL (${zone.defaultTtl} s).`,
        },
      ]
    : [];
  return { rrsets: [...byKey.values()], errors, warnings };
}

/** The change items that make a zone take a zone file's records (merge or replace). */
export async function zoneFileChangeItems(ctx: DbContext, zone: Zone, zonefile: string, mode: ImportRequest['mode']) {
  if (Buffer.byteLength(zonefile, 'utf8') > MAX_ZONEFILE_BYTES) {
    throw new DomainError('payload_too_large', { limit: MAX_ZONEFILE_BYTES });
  }
  const parsed = parseZoneFile(zonefile, zone.name);
  const desired = desiredRRsets(parsed.entries, zone);
  const all = [...parsed.errors.map((e) => lineError(e.line, e.code, e.detail)), ...desired.errors].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  if (all.length) throw new DomainError('validation_failed', {}, all);

  const stored = await zoneRecordRows(ctx.scoped, zone.id);
  // RRsets kept by another object (a dynamic DNS host's address) are not the file's to change:
  // an import leaves them as they are, in both modes, and reports the file's lines for them.
  const kept = new Set(stored.filter((r) => r.managed_by).map((r) => `${r.name}\u0000${r.type}`));
  const current = stored.filter((r) => !r.managed_by);
  const skipped = [...parsed.skipped];
  const rrsets = desired.rrsets.filter((s) => {
    if (!kept.has(`${s.name}\u0000${s.type}`)) return true;
    const owner = s.name === '@' ? zone.name : `${s.name}.${zone.name}`;
    for (const line of s.lines) skipped.push({ line, owner, type: s.type, reason: 'managed' });
    return false;
  });
  skipped.sort((a, b) => a.line - b.line);
  const existing = new Set(current.map((r) => `${r.name}\u0000${r.type}\u0000${r.content}`));
  const items: ChangeItem[] = [];
  /** The file line of each item, to report engine errors where the user can find them. */
  const itemLines: number[] = [];
  /** TTLs of the file that gave way to an existing RRset's (merge). */
  const warnings: Warning[] = [];
  let unchanged = 0;
  if (mode === 'replace') {
    const wanted = new Set(rrsets.map((s) => `${s.name}\u0000${s.type}`));
    for (const s of rrsets) {
      items.push({ op: 'replace_rrset', name: s.name, type: s.type, ttl: s.ttl, records: s.datas });
      itemLines.push(s.lines[0]!);
    }
    const gone = new Map<string, RecordRow>();
    for (const r of current) if (!wanted.has(`${r.name}\u0000${r.type}`)) gone.set(`${r.name}\u0000${r.type}`, r);
    for (const r of gone.values()) {
      items.push({ op: 'replace_rrset', name: r.name === '@' ? '@' : r.name, type: r.type, records: [] });
      itemLines.push(0);
    }
  } else {
    const presentTtl = new Map(current.map((r) => [`${r.name}\u0000${r.type}`, r.ttl]));
    for (const s of rrsets) {
      const key = `${s.name}\u0000${s.type}`;
      let added = 0;
      s.datas.forEach((data, i) => {
        if (existing.has(`${s.name}\u0000${s.type}\u0000${s.contents[i]}`)) {
          unchanged++;
          return;
        }
        // Merge adds records; into an existing RRset they take its TTL (the rest stays as it is).
        const record = presentTtl.has(key) ? { type: s.type, name: s.name, data } : { type: s.type, name: s.name, data, ttl: s.ttl };
        items.push({ op: 'create', record });
        itemLines.push(s.lines[i]!);
        added++;
      });
      // RFC 2181 §5.2: one TTL per RRset; the file's gave way to the zone's, which merge keeps.
      const kept = presentTtl.get(key);
      if (added && kept !== undefined && kept !== s.ttl) {
        warnings.push({
          code: 'rrset_ttl_aligned',
          detail: `Line ${s.lines[0]}: ${s.name} ${s.type} joins an RRset with TTL ${kept ?? 'default'}; ${added} record(s) of the file take it instead of TTL ${s.ttl ?? 'default'} (merge leaves existing records as they are).`,
        });
      }
    }
  }
  if (mode === 'replace') {
    unchanged = rrsets.reduce((n, s) => n + s.contents.filter((c) => existing.has(`${s.name}\u0000${s.type}\u0000${c}`)).length, 0);
  }

  return { items, itemLines, skipped, unchanged, warnings: [...desired.warnings, ...warnings] };
}

/** POST /zones/{zone}/import: one change set through the write seam. */
export const importZoneFile = (ctx: WriteContext, config: Config, zoneRef: string, request: ImportRequest): Promise<ImportResult> =>
  writeZone(ctx, config, zoneRef, {}, async (zone) => {
    const { items, itemLines, skipped, unchanged, warnings } = await zoneFileChangeItems(ctx, zone, request.zonefile, request.mode);
    // Items come from the file: their problems are told by line.
    const { changeSet, plan } = await applyChangeSet(
      ctx,
      zone,
      { changes: items, dry_run: request.dryRun, comment: `zone file import (${request.mode})` },
      { kind: 'import', locate: (i) => ({ pointer: '/zonefile', ...(itemLines[i] ? { line: itemLines[i] } : {}) }) },
    );
    plan.warnings.push(...warnings);
    return { zone, changeSet, plan, skipped, unchanged };
  });
