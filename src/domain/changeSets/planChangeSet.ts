// The change-set engine: applies every item to the zone's current records in memory and checks
// the result, never the intermediate steps (spec: "validated against the zone state after all
// items are applied"). Pure: the caller loads the records the items touch and stores the plan.
import { canonicalJson } from '../canonicalJson.js';
import { DomainError, type FieldError } from '../errors.js';
import { NameError, normalizeOwner } from '../names.js';
import { givesRecordData, namesRepeatingOrigin, parseRecordInput, type RecordDataInput } from '../records/parseRecordInput.js';
import { isRecordType, ruleOf, type RecordType, unsupportedTypeDetail } from '../records/types.js';
import { isValidTtl, TTL_BOUNDS } from '../records/ttl.js';
import type { RecordData } from '../model/record.js';
import type { ZoneKind } from '../model/zone.js';

export interface ZoneContext {
  name: string;
  kind: ZoneKind;
}

/** A record as the engine sees it: canonical data and its presentation, of a type it knows. */
export interface PlannedRecord extends RecordData {
  /** SOA only on the system record the service manages. */
  type: RecordType | 'SOA';
}

export interface RecordInput {
  type: string;
  name: string;
  ttl?: number | null;
  /** Exactly one of data (the type's fields) and content (presentation text, names relative to the zone). */
  data?: unknown;
  content?: string;
  comment?: string | null;
}

export type ChangeItem =
  | { op: 'create'; record: RecordInput }
  | { op: 'update'; id: string; if_match?: string; record: Partial<RecordInput> }
  | { op: 'delete'; id: string; if_match?: string }
  /** `records`: data objects, or strings of presentation text (as `content`). */
  | { op: 'replace_rrset'; name: string; type: string; ttl?: number | null; records: unknown[] };

/**
 * Where the problem of item `index` is, given its pointer within the item (`/record/data/address`).
 * Single-record writes, zone creation, imports and templates word the request differently.
 */
export type LocateItem = (index: number, inner: string) => Pick<FieldError, 'pointer' | 'index' | 'line' | 'in'>;

/** Items of a change-set request body. */
export const changeSetItem: LocateItem = (index, inner) => ({ pointer: `/changes/${index}${inner}`, index });

export interface ItemResult {
  index: number;
  op: ChangeItem['op'];
  /** Records the item created, changed or deleted. */
  record_ids: string[];
}

export interface Warning {
  index?: number;
  code: string;
  detail: string;
}

export interface ChangeSetPlan {
  created: PlannedRecord[];
  updated: { before: PlannedRecord; after: PlannedRecord }[];
  deleted: PlannedRecord[];
  results: ItemResult[];
  warnings: Warning[];
}

const key = (name: string, type: string) => `${name}\u0000${type}`;
const same = (a: PlannedRecord, b: PlannedRecord) => a.name === b.name && a.ttl === b.ttl && a.content === b.content && a.comment === b.comment;

/** Owner names and record ids the items refer to: what the caller must load before planning. */
export function referencesOf(items: ChangeItem[], zone: ZoneContext): { names: string[]; ids: string[] } {
  const names = new Set<string>();
  const ids = new Set<string>();
  const owner = (raw: unknown) => {
    if (typeof raw !== 'string') return;
    try {
      names.add(normalizeOwner(raw, zone.name));
    } catch {
      // reported by planChangeSet
    }
  };
  for (const item of items) {
    if (item.op === 'create') owner(item.record.name);
    if (item.op === 'update') {
      ids.add(item.id);
      owner(item.record.name);
    }
    if (item.op === 'delete') ids.add(item.id);
    if (item.op === 'replace_rrset') owner(item.name);
  }
  return { names: [...names], ids: [...ids] };
}

interface Working extends PlannedRecord {
  /** TTL not given on create: take the RRset's. */
  inheritTtl?: boolean;
}

/**
 * Plans a change set. `existing` must hold every record at the names the items touch and every
 * record they name by id (see referencesOf). Throws 422 validation_failed listing every bad item
 * with its index and pointer, 403 record_readonly for system records, or 409 record_managed for
 * records another object keeps (a write changes only the records of its own `manager`).
 */
export function planChangeSet(input: {
  zone: ZoneContext;
  existing: PlannedRecord[];
  items: ChangeItem[];
  newId: () => string;
  /** Where an item's problem is in the request (default: `/changes/<i>` + the item's pointer). */
  locate?: LocateItem;
  /**
   * The object writing on its own behalf (a dynamic DNS host's id): its records are the ones this
   * write may change, and records it creates are kept by it. Absent: the tenant's own records.
   */
  manager?: string | null;
}): ChangeSetPlan {
  const { zone, items } = input;
  const locate = input.locate ?? changeSetItem;
  const errors: FieldError[] = [];
  const readonly: FieldError[] = [];
  const managed: FieldError[] = [];
  const manager = input.manager ?? null;
  const warnings: Warning[] = [];
  const results: ItemResult[] = [];
  const before = new Map(input.existing.map((r) => [r.id, r]));
  // The zone as the items leave it. Writes go through put/remove, which keep an index of the
  // records of each RRset, so an item never scans the whole state (an import has tens of
  // thousands of items). `position` is the record's place in `state`'s insertion order: an
  // RRset is listed in that order, exactly as a scan of `state` would list it.
  const state = new Map<string, Working>();
  const position = new Map<string, number>();
  const rrsetIds = new Map<string, Set<string>>();
  let inserted = 0;
  const indexAdd = (rec: Working) => {
    const k = key(rec.name, rec.type);
    let ids = rrsetIds.get(k);
    if (!ids) rrsetIds.set(k, (ids = new Set()));
    ids.add(rec.id);
  };
  const put = (rec: Working) => {
    const prev = state.get(rec.id);
    if (!prev) {
      position.set(rec.id, inserted++);
      indexAdd(rec);
    } else if (prev.name !== rec.name || prev.type !== rec.type) {
      rrsetIds.get(key(prev.name, prev.type))?.delete(rec.id);
      indexAdd(rec);
    }
    state.set(rec.id, rec);
  };
  const remove = (id: string) => {
    const prev = state.get(id);
    if (!prev) return;
    rrsetIds.get(key(prev.name, prev.type))?.delete(id);
    position.delete(id);
    state.delete(id);
  };
  const rrsetOf = (name: string, type: string): Working[] =>
    [...(rrsetIds.get(key(name, type)) ?? [])].sort((a, b) => position.get(a)! - position.get(b)!).map((id) => state.get(id)!);
  for (const r of input.existing) put({ ...r });
  /** Which items touched a name, to attribute invariant violations. */
  const touchedBy = new Map<string, number[]>();
  /** Explicit TTLs per RRset: the RRset is aligned to it (RFC 2181 §5.2). */
  const explicitTtl = new Map<string, { ttl: number | null; index: number }>();

  const fail = (index: number, pointer: string, code: string, detail: string) => errors.push({ ...locate(index, pointer), code, detail });
  const touch = (name: string, index: number) => {
    const indexes = touchedBy.get(name);
    if (indexes) indexes.push(index);
    else touchedBy.set(name, [index]);
  };
  const setTtl = (name: string, type: string, ttl: number | null, index: number, pointer: string) => {
    if (ttl !== null && !isValidTtl(ttl)) {
      fail(index, pointer, 'ttl_out_of_range', `TTL must be an integer from ${TTL_BOUNDS.min} to ${TTL_BOUNDS.max} seconds, or null for the zone default.`);
    }
    const k = key(name, type);
    const prior = explicitTtl.get(k);
    if (prior && prior.ttl !== ttl) {
      fail(index, pointer, 'rrset_ttl_conflict', `Item ${prior.index} sets the TTL of ${name} ${type} to ${prior.ttl}; one RRset has one TTL (RFC 2181 §5.2).`);
    }
    explicitTtl.set(k, { ttl, index });
  };
  const owner = (raw: string, index: number, pointer: string): string | null => {
    try {
      const name = normalizeOwner(raw, zone.name);
      // A common slip: "www.example.com" without the final dot is relative to the zone.
      if (!raw.trim().endsWith('.') && (name === zone.name || name.endsWith(`.${zone.name}`))) {
        warnings.push({
          index,
          code: 'name_repeats_zone',
          detail: `"${raw}" is relative, so it means ${name}.${zone.name}; write an absolute name with a final dot.`,
        });
      }
      return name;
    } catch (e) {
      if (e instanceof NameError) fail(index, pointer, e.code, e.message);
      else throw e;
      return null;
    }
  };
  const typeOf = (raw: string, index: number, pointer: string): RecordType | null => {
    const t = raw.toUpperCase();
    if (!isRecordType(t)) {
      fail(index, pointer, 'unsupported_type', unsupportedTypeDetail(t));
      return null;
    }
    if (!ruleOf(t).zoneKinds.includes(zone.kind)) {
      fail(index, pointer, 'type_not_allowed_in_zone', `${t} records are not allowed in ${zone.kind} zones.`);
      return null;
    }
    return t;
  };
  const ownerFits = (type: RecordType, name: string, index: number, pointer: string) => {
    const problem = ruleOf(type).ownerProblem(name);
    if (problem) fail(index, pointer, 'owner_not_allowed', problem);
    return !problem;
  };
  /** `relocate` turns a pointer into the record body (`/data…`, `/content`) into one into the item. */
  const dataOf = (type: RecordType, input: RecordDataInput, index: number, relocate: (inner: string) => string) => {
    const parsed = parseRecordInput(type, input, zone.name);
    if (parsed.ok) {
      // The slip of the owner's name_repeats_zone, inside content: `data` names are absolute without the dot, content names are not.
      if (input.content !== undefined) {
        for (const name of namesRepeatingOrigin(type, parsed.data, zone.name)) {
          warnings.push({
            index,
            code: 'name_repeats_zone',
            detail: `The content names ${name}: a name without a final dot is relative to the zone; write an absolute name with a final dot.`,
          });
        }
      }
      return parsed.data;
    }
    for (const e of parsed.errors) fail(index, relocate(e.pointer), e.code, e.detail);
    return null;
  };
  const inRecord = (inner: string) => `/record${inner}`;
  // Completed in place, not spread into a copy: every caller passes a fresh literal, and a spread
  // that then adds a property costs V8 a slow copy per record (2 µs; an import plans 20,000).
  const build = (base: Omit<Working, 'content'>): Working => Object.assign(base, { content: ruleOf(base.type as RecordType).presentation(base.data) });
  const managedDetail = (name: string, type: string, keeper: string | null) =>
    keeper ? `${name} ${type} is kept by ${keeper}; change it there (or delete that object to release it).` : `${name} ${type} is not kept by ${manager}.`;
  /** A record this write may not change: the service's (SOA, apex NS) or another object's. */
  const guard = (rec: Working, index: number, pointer: string) => {
    if (rec.system) {
      readonly.push({ ...locate(index, pointer), code: 'record_readonly', detail: `${rec.name} ${rec.type} is managed by the service.` });
      return true;
    }
    const keeper = rec.managedBy ?? null;
    if (keeper === manager) return false;
    managed.push({ ...locate(index, pointer), code: 'record_managed', detail: managedDetail(rec.name, rec.type, keeper) });
    return true;
  };
  /** The record an update or delete names, if it exists and this write may change it; else null, its problem recorded. */
  const changeable = (id: string, index: number): Working | null => {
    const current = state.get(id);
    if (!current) {
      fail(index, '/id', 'not_found', `No record ${id} in this zone (or an earlier item deleted it).`);
      return null;
    }
    return guard(current, index, '/id') ? null : current;
  };

  /** What an item did: the owner names it touched and the records it wrote. */
  interface Applied {
    touched: string[];
    ids: string[];
  }
  /** Applies one item to the working state; undefined when it cannot (its problems recorded). */
  const apply = (item: ChangeItem, index: number): Applied | undefined => {
    switch (item.op) {
      case 'create': {
        const r = item.record;
        const type = typeOf(r.type, index, '/record/type');
        const name = owner(r.name, index, '/record/name');
        if (!type || name === null || !ownerFits(type, name, index, '/record/name')) return;
        const data = dataOf(type, r, index, inRecord);
        if (!data) return;
        const hasTtl = r.ttl !== undefined;
        if (hasTtl) setTtl(name, type, r.ttl ?? null, index, '/record/ttl');
        const rec = build({
          id: input.newId(),
          name,
          type,
          ttl: r.ttl ?? null,
          data,
          comment: r.comment ?? null,
          system: false,
          managedBy: manager,
          inheritTtl: !hasTtl,
        });
        put(rec);
        return { touched: [name], ids: [rec.id] };
      }
      case 'update': {
        const current = changeable(item.id, index);
        if (!current) return;
        const r = item.record;
        if (r.type !== undefined && r.type.toUpperCase() !== current.type) {
          fail(index, '/record/type', 'immutable', 'The type of a record cannot change; delete it and create another.');
          return;
        }
        const type = current.type as RecordType;
        const name = r.name === undefined ? current.name : owner(r.name, index, '/record/name');
        if (name === null || !ownerFits(type, name, index, '/record/name')) return;
        const data = givesRecordData(r) ? dataOf(type, r, index, inRecord) : current.data;
        if (!data) return;
        if (r.ttl !== undefined) setTtl(name, current.type, r.ttl, index, '/record/ttl');
        const next = build({
          ...current,
          name,
          data,
          ttl: r.ttl === undefined ? current.ttl : r.ttl,
          comment: r.comment === undefined ? current.comment : r.comment,
          // A record moved without a TTL takes its new RRset's, also when a later item changes it again.
          inheritTtl: r.ttl === undefined && (name !== current.name || current.inheritTtl === true),
        });
        put(next);
        return { touched: [current.name, name], ids: [item.id] };
      }
      case 'delete': {
        const current = changeable(item.id, index);
        if (!current) return;
        remove(item.id);
        return { touched: [current.name], ids: [item.id] };
      }
      case 'replace_rrset': {
        const type = typeOf(item.type, index, '/type');
        const name = owner(item.name, index, '/name');
        if (!type || name === null || !ownerFits(type, name, index, '/name')) return;
        const wanted: Record<string, unknown>[] = [];
        item.records.forEach((raw, j) => {
          // A string is a record's content; an object its data. Either way the pointer is the list entry's.
          const input = typeof raw === 'string' ? { content: raw } : { data: raw };
          const data = dataOf(type, input, index, (inner) => `/records/${j}${inner.replace(/^\/(data|content)/, '')}`);
          if (data) wanted.push(data);
        });
        if (wanted.length !== item.records.length) return;
        const current = rrsetOf(name, type);
        if (current.some((r) => guard(r, index, '/name'))) return;
        if (item.ttl !== undefined) setTtl(name, type, item.ttl, index, '/ttl');
        // Without a TTL the RRset keeps its own: that of a record not moved in by an earlier item.
        const ttl = item.ttl !== undefined ? item.ttl : ((current.find((r) => !r.inheritTtl) ?? current[0])?.ttl ?? null);
        const ids: string[] = [];
        // Every current record, by content: an earlier item may have made two of them equal for a
        // moment (the end state may not keep duplicates, but this item replaces them all).
        const keep = new Map<string, Working[]>();
        for (const r of current) keep.set(r.content, [...(keep.get(r.content) ?? []), r]);
        const seen = new Set<string>();
        for (const data of wanted) {
          const content = ruleOf(type).presentation(data);
          if (seen.has(content)) {
            fail(index, '/records', 'duplicate', `The RRset lists ${content} twice.`);
            continue;
          }
          seen.add(content);
          const existing = keep.get(content)?.shift();
          // Records whose content stays keep their id and comment.
          const rec = existing ? { ...existing, ttl } : build({ id: input.newId(), name, type, ttl, data, comment: null, system: false, managedBy: manager });
          put(rec);
          ids.push(rec.id);
        }
        for (const gone of [...keep.values()].flat()) {
          remove(gone.id);
          ids.push(gone.id);
        }
        return { touched: [name], ids };
      }
    }
  };

  items.forEach((item, index) => {
    const applied = apply(item, index);
    if (!applied) return;
    for (const name of applied.touched) touch(name, index);
    results.push({ index, op: item.op, record_ids: applied.ids });
  });

  if (readonly.length) throw new DomainError('record_readonly', {}, readonly);
  if (managed.length) throw new DomainError('record_managed', {}, managed);
  if (errors.length) throw new DomainError('validation_failed', {}, errors);

  // One TTL per RRset (RFC 2181 §5.2): an explicit TTL aligns the RRset; records created without
  // one take the RRset's.
  const rrsets = new Map<string, Working[]>();
  for (const rec of state.values()) {
    if (!touchedBy.has(rec.name)) continue;
    const k = key(rec.name, rec.type);
    const recs = rrsets.get(k);
    if (recs) recs.push(rec);
    else rrsets.set(k, [rec]);
  }
  for (const [k, recs] of rrsets) {
    // An RRset is kept whole by one keeper: a record created into another's RRset (or moved there) would
    // be changed by that keeper's next write.
    const keepers = new Set(recs.map((r) => r.managedBy ?? null));
    if (keepers.size > 1) {
      const keeper = [...keepers].find((m) => m !== manager) ?? null;
      const indexes = touchedBy.get(recs[0]!.name) ?? [];
      managed.push({ ...locate(indexes[indexes.length - 1] ?? 0, ''), code: 'record_managed', detail: managedDetail(recs[0]!.name, recs[0]!.type, keeper) });
      continue;
    }
    const explicit = explicitTtl.get(k);
    const ttl = explicit ? explicit.ttl : ((recs.find((r) => !r.inheritTtl) ?? recs.find((r) => r.ttl !== null))?.ttl ?? null);
    const changed = recs.filter((r) => r.ttl !== ttl && !r.inheritTtl);
    for (const r of recs) {
      r.ttl = ttl;
      delete r.inheritTtl;
    }
    if (changed.length && explicit) {
      warnings.push({
        index: explicit.index,
        code: 'rrset_ttl_aligned',
        detail: `The TTL of ${recs[0]!.name} ${recs[0]!.type} applies to the whole RRset: ${changed.length} other record(s) now have TTL ${ttl ?? 'default'}.`,
      });
    }
  }

  if (managed.length) throw new DomainError('record_managed', {}, managed);

  // Invariants on every touched name, on the final state (its records in state order).
  const atName = new Map<string, Working[]>();
  for (const rec of state.values()) {
    if (!touchedBy.has(rec.name)) continue;
    const recs = atName.get(rec.name);
    if (recs) recs.push(rec);
    else atName.set(rec.name, [rec]);
  }
  for (const [name, indexes] of touchedBy) {
    const recs = atName.get(name) ?? [];
    const last = indexes[indexes.length - 1]!;
    const pointer = (i: number) => {
      const it = items[i]!;
      return it.op === 'replace_rrset' ? '/name' : it.op === 'delete' ? '/id' : '/record/name';
    };
    if (recs.some((r) => r.type === 'CNAME') && recs.length > 1) {
      for (const i of new Set(indexes)) {
        if (items[i]!.op === 'delete') continue;
        fail(i, pointer(i), 'cname_conflict', `A CNAME at ${name} cannot coexist with other records (RFC 1034 §3.6.2).`);
      }
    }
    const contents = new Set<string>();
    for (const r of recs) {
      const c = key(r.type, r.content);
      if (contents.has(c)) fail(last, pointer(last), 'duplicate', `${name} ${r.type} ${r.content} exists already.`);
      contents.add(c);
    }
  }
  if (errors.length) throw new DomainError('validation_failed', {}, errors);

  const created: PlannedRecord[] = [];
  const updated: { before: PlannedRecord; after: PlannedRecord }[] = [];
  for (const rec of state.values()) {
    const old = before.get(rec.id);
    if (!old) created.push(rec);
    // Key order is not data: stored jsonb comes back with its keys reordered.
    else if (!same(old, rec) || canonicalJson(old.data) !== canonicalJson(rec.data)) updated.push({ before: old, after: rec });
  }
  const deleted = input.existing.filter((r) => !state.has(r.id));
  return { created, updated, deleted, results, warnings };
}
