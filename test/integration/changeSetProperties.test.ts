// Property-based test of atomic change sets over real HTTP and real PostgreSQL.
//
// fast-check generates runs of up to 6 change sets (up to 8 items each: create, update, delete,
// replace_rrset over @, www, mail, a, b, _sip._tcp and A, AAAA, CNAME, MX, TXT, with deliberately
// invalid items mixed in) and POSTs them to one fresh zone per run. After every set:
//
// - 201: the zone, read through GET /records AND straight from the database, satisfies every
//   invariant (CNAME exclusivity, no CNAME at the apex, one TTL per RRset, no duplicate
//   name/type/content, SOA and two apex NS present and untouched) and equals the model below
//   (name/type/content/ttl/comment, record ids kept where the model keeps them), the response's
//   summary counts equal the model's, and exactly one change set was added;
// - 4xx: the status is the one the model predicts (422, 403 or 412), the listing is byte-for-byte
//   unchanged, the rows in the database are unchanged and no change set was added.
//
// The model is written from the documented rules (docs/records.md, the API schema descriptions),
// independently of src/domain/changeSets: it must not import the engine it checks.
//
// Reproduce a failure: fast-check prints `seed` and `path` (and the shrunk counterexample); rerun with
//   FC_SEED=<seed> FC_PATH=<path> DATABASE_URL=… npx vitest run test/integration/changeSetProperties.test.ts
// or run the counterexample alone: FC_EX='<its array of sets as JSON>' FC_RUNS=1. Other knobs:
// FC_RUNS (default 25; the pinned REGRESSIONS below are the first runs), FC_SHRINK=0 (stop at the
// first failure), FC_DEBUG=1 (print the model's verdict for every set). A failure message carries
// the trace of the run: every body sent, the model's verdict and every response.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';

// ---------------------------------------------------------------------------------------------
// The generated vocabulary: everything printable, so fast-check's counterexamples read well.

type RType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT';
/** PTR: not allowed in forward zones; SPF: not a supported type. */
type AnyType = RType | 'PTR' | 'SPF';

/** Owner names as sent (`{zone}` is replaced by the zone name) → stored name, or null: refused. */
const NAMES: Record<string, string | null> = {
  '@': '@',
  www: 'www',
  mail: 'mail',
  a: 'a',
  b: 'b',
  '_sip._tcp': '_sip._tcp',
  // Other spellings of the same names (docs/records.md "Owner names").
  'WWW.{zone}.': 'www',
  Mail: 'mail',
  '{zone}.': '@',
  '{zone}': '@',
  '': '@',
  'A.{zone}.': 'a',
  // Refused.
  'bad..name': null,
  '-b': null,
  'www.elsewhere.example.': null,
};
const GOOD_NAMES = ['@', 'www', 'mail', 'a', 'b', '_sip._tcp'];
const ALIAS_NAMES = ['WWW.{zone}.', 'Mail', '{zone}.', '{zone}', '', 'A.{zone}.'];
const BAD_NAMES = ['bad..name', '-b', 'www.elsewhere.example.'];

/** Data as sent → stored presentation content (docs/records.md "Record types"). */
interface DataEntry {
  data: unknown;
  content: string | null;
}
const GOOD_DATA: Record<AnyType, DataEntry[]> = {
  A: [
    { data: { address: '192.0.2.1' }, content: '192.0.2.1' },
    { data: { address: '192.0.2.2' }, content: '192.0.2.2' },
    { data: { address: ' 198.51.100.7 ' }, content: '198.51.100.7' },
  ],
  AAAA: [
    { data: { address: '2001:db8::1' }, content: '2001:db8::1' },
    { data: { address: '2001:DB8:0:0:0:0:0:1' }, content: '2001:db8::1' },
    { data: { address: '2001:db8::2' }, content: '2001:db8::2' },
    { data: { address: '64:ff9b::192.0.2.33' }, content: '64:ff9b::c000:221' },
  ],
  CNAME: [
    { data: { target: 'target.example.net' }, content: 'target.example.net.' },
    { data: { target: 'Other.Example.NET.' }, content: 'other.example.net.' },
  ],
  MX: [
    { data: { preference: 10, exchange: 'mx1.example.net' }, content: '10 mx1.example.net.' },
    { data: { preference: 20, exchange: 'MX2.example.net.' }, content: '20 mx2.example.net.' },
    { data: { preference: 0, exchange: '.' }, content: '0 .' },
  ],
  TXT: [
    { data: { text: 'hello' }, content: '"hello"' },
    { data: { text: 'v=spf1 -all' }, content: '"v=spf1 -all"' },
    { data: { text: 'say "hi" \\o/' }, content: '"say \\"hi\\" \\\\o/"' },
  ],
  PTR: [{ data: { target: 'host.example.net' }, content: null }],
  SPF: [{ data: { text: 'v=spf1 -all' }, content: null }],
};
const BAD_DATA: Record<AnyType, DataEntry[]> = {
  A: [
    { data: { address: '192.0.2.256' }, content: null },
    { data: { address: '192.0.2.01' }, content: null },
    { data: { address: '2001:db8::1' }, content: null },
    { data: { target: 'target.example.net' }, content: null },
  ],
  AAAA: [
    { data: { address: '2001:db8::g' }, content: null },
    { data: { address: '192.0.2.1' }, content: null },
    { data: { address: 'fe80::1%eth0' }, content: null },
  ],
  CNAME: [
    { data: { target: 'single' }, content: null },
    { data: { target: '192.0.2.1' }, content: null },
    { data: {}, content: null },
  ],
  MX: [
    { data: { preference: 10, exchange: '.' }, content: null },
    { data: { preference: 70000, exchange: 'mx1.example.net' }, content: null },
    { data: { preference: '10', exchange: 'mx1.example.net' }, content: null },
  ],
  TXT: [
    { data: { text: '' }, content: null },
    { data: { text: 'a', extra: 1 }, content: null },
  ],
  PTR: GOOD_DATA.PTR,
  SPF: GOOD_DATA.SPF,
};

/** Resolved at run time against the record's type (an update's type is the target's). */
interface DataPick {
  bad: boolean;
  n: number;
}
const dataEntry = (type: AnyType, pick: DataPick): DataEntry => {
  const pool = (pick.bad ? BAD_DATA : GOOD_DATA)[type];
  return pool[pick.n % pool.length]!;
};

/** 'omit': no ttl key; null: the zone default; 30: below the minimum (refused by the schema). */
type TtlPick = 'omit' | number | null;
type CommentPick = 'omit' | string | null;
/**
 * Which record an update/delete names: the n-th user record not deleted by an earlier item of the
 * set (the item is left out when there is none), the n-th system record, an id that never
 * existed, or a record an earlier item of the set deleted (left out when there is none).
 */
type Ref = { k: 'user'; n: number } | { k: 'system'; n: number } | { k: 'unknown' } | { k: 'deleted' };
type IfMatchPick = 'none' | 'good' | 'bad';

type GenItem =
  | { op: 'create'; type: AnyType; name: string; data: DataPick; ttl: TtlPick; comment: CommentPick }
  | {
      op: 'update';
      ref: Ref;
      name: string | 'omit';
      data: DataPick | 'omit';
      ttl: TtlPick;
      comment: CommentPick;
      sendType: 'omit' | 'same' | 'other';
      ifMatch: IfMatchPick;
    }
  | { op: 'delete'; ref: Ref; ifMatch: IfMatchPick }
  | { op: 'replace_rrset'; type: AnyType; name: string; ttl: TtlPick; records: DataPick[] };

interface GenSet {
  items: GenItem[];
  zoneIfMatch: IfMatchPick;
  dryRunFirst: boolean;
}

// A "clean" set draws only valid values (it can still break the zone's rules: duplicates, CNAME
// beside other data, conflicting TTLs, ids deleted by an earlier item); a "dirty" one mixes in
// invalid values on purpose. Without the split almost every set of eight items is refused.
const pick = <T>(clean: boolean, good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>, badWeight = 2) =>
  clean ? good : fc.oneof({ weight: 16, arbitrary: good }, { weight: badWeight, arbitrary: bad });

const arbType = (clean: boolean): fc.Arbitrary<AnyType> =>
  pick(
    clean,
    fc.oneof({ weight: 6, arbitrary: fc.constantFrom<AnyType>('A', 'AAAA', 'MX', 'TXT') }, { weight: 1, arbitrary: fc.constant<AnyType>('CNAME') }),
    fc.constantFrom<AnyType>('PTR', 'SPF'),
  );
const arbName = (clean: boolean) =>
  pick(
    clean,
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...GOOD_NAMES) }, { weight: 1, arbitrary: fc.constantFrom(...ALIAS_NAMES) }),
    fc.constantFrom(...BAD_NAMES),
  );
const arbData = (clean: boolean): fc.Arbitrary<DataPick> => fc.record({ bad: pick(clean, fc.constant(false), fc.constant(true)), n: fc.nat(11) });
const arbTtl = (clean: boolean): fc.Arbitrary<TtlPick> =>
  pick(
    clean,
    fc.oneof({ weight: 3, arbitrary: fc.constant<TtlPick>('omit') }, { weight: 1, arbitrary: fc.constantFrom<TtlPick>(300, 3600, null) }),
    fc.constant<TtlPick>(30),
    1,
  );
const arbComment: fc.Arbitrary<CommentPick> = fc.constantFrom<CommentPick>('omit', 'omit', 'omit', null, 'first', 'second');
const arbRef = (clean: boolean): fc.Arbitrary<Ref> =>
  pick<Ref>(
    clean,
    fc.record({ k: fc.constant('user' as const), n: fc.nat(40) }),
    fc.oneof<fc.Arbitrary<Ref>[]>(fc.record({ k: fc.constant('system' as const), n: fc.nat(2) }), fc.constantFrom<Ref>({ k: 'unknown' }, { k: 'deleted' })),
    4,
  );
const arbIfMatch = (clean: boolean): fc.Arbitrary<IfMatchPick> =>
  pick(
    clean,
    fc.oneof({ weight: 6, arbitrary: fc.constant<IfMatchPick>('none') }, { weight: 1, arbitrary: fc.constant<IfMatchPick>('good') }),
    fc.constant<IfMatchPick>('bad'),
  );

const arbItem = (clean: boolean): fc.Arbitrary<GenItem> =>
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc.record({
        op: fc.constant('create' as const),
        type: arbType(clean),
        name: arbName(clean),
        data: arbData(clean),
        ttl: arbTtl(clean),
        comment: arbComment,
      }),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant('update' as const),
        ref: arbRef(clean),
        name: fc.oneof({ weight: 2, arbitrary: fc.constant('omit') }, { weight: 1, arbitrary: arbName(clean) }),
        data: fc.oneof({ weight: 1, arbitrary: fc.constant('omit' as const) }, { weight: 2, arbitrary: arbData(clean) }),
        ttl: arbTtl(clean),
        comment: arbComment,
        sendType: pick(clean, fc.constantFrom<'omit' | 'same' | 'other'>('omit', 'omit', 'omit', 'same'), fc.constant<'omit' | 'same' | 'other'>('other')),
        ifMatch: arbIfMatch(clean),
      }),
    },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('delete' as const), ref: arbRef(clean), ifMatch: arbIfMatch(clean) }) },
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant('replace_rrset' as const),
        type: arbType(clean),
        name: arbName(clean),
        ttl: arbTtl(clean),
        // Clean: distinct picks (two spellings of one AAAA address still make a duplicate).
        records: clean
          ? fc.uniqueArray(fc.nat(3), { maxLength: 3 }).map((ns) => ns.map((n) => ({ bad: false, n })))
          : fc.array(arbData(clean), { maxLength: 3 }),
      }),
    },
  );
const arbSetOf = (clean: boolean): fc.Arbitrary<GenSet> =>
  fc.record({
    items: fc.array(arbItem(clean), { minLength: 1, maxLength: 8 }),
    zoneIfMatch: pick(
      clean,
      fc.oneof({ weight: 10, arbitrary: fc.constant<IfMatchPick>('none') }, { weight: 1, arbitrary: fc.constant<IfMatchPick>('good') }),
      fc.constant<IfMatchPick>('bad'),
      1,
    ),
    dryRunFirst: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  });
const arbSet: fc.Arbitrary<GenSet> = fc.oneof({ weight: 3, arbitrary: arbSetOf(true) }, { weight: 2, arbitrary: arbSetOf(false) });

// ---------------------------------------------------------------------------------------------
// The model: a zone's records and the documented meaning of each item, applied all at once.

interface ApiRecord {
  id: string;
  name: string;
  type: string;
  ttl: number | null;
  content: string;
  comment: string | null;
  system: boolean;
  [k: string]: unknown;
}

/** A record in the model's working copy. `orig*` describe it before the set (null: new). */
interface MRec {
  id: string | null;
  name: string;
  type: string;
  content: string;
  ttl: number | null;
  comment: string | null;
  system: boolean;
  origName: string | null;
  origTtl: number | null;
  /** An item moved it to another name (even if a later one moved it back). */
  moved: boolean;
}

/** One item as sent, with what the model needs to judge it. */
interface Resolved {
  body: Record<string, unknown>;
  apply: (w: Working) => void;
}

interface Working {
  recs: Map<string, MRec>;
  /** Explicit TTLs per RRset key. */
  explicit: Map<string, Set<number | null>>;
  error: string[];
  readonly: string[];
  schemaError: string[];
  precondition: string[];
  nextNew: number;
}

type Outcome = { accept: true; final: MRec[]; ttls: Map<string, Set<number | null>> } | { accept: false; statuses: number[]; why: string[] };

const rrKey = (name: string, type: string) => `${name} ${type}`;
const recKey = (r: { name: string; type: string; content: string }) => `${r.name} ${r.type} ${r.content}`;
const USER_TYPES = new Set<string>(['A', 'AAAA', 'CNAME', 'MX', 'TXT']);

/** The outcome the documented rules predict for `items` applied to `before`. */
function predict(before: ApiRecord[], resolved: Resolved[], zoneIfMatchBad: boolean): Outcome {
  const w: Working = {
    recs: new Map(before.map((r) => [r.id, { ...r, origName: r.name, origTtl: r.ttl, moved: false }])),
    explicit: new Map(),
    error: [],
    readonly: [],
    schemaError: [],
    precondition: zoneIfMatchBad ? ['zone_if_match'] : [],
    nextNew: 0,
  };
  for (const item of resolved) item.apply(w);
  if (w.schemaError.length) return { accept: false, statuses: [422], why: w.schemaError };
  if (w.precondition.length) return { accept: false, statuses: [412], why: w.precondition };
  if (w.readonly.length) return { accept: false, statuses: w.error.length ? [403, 422] : [403], why: [...w.readonly, ...w.error] };
  for (const [k, ttls] of w.explicit) if (ttls.size > 1) w.error.push(`conflicting TTLs for ${k}`);
  const final = [...w.recs.values()];
  const byName = new Map<string, MRec[]>();
  for (const r of final) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
  for (const [name, recs] of byName) {
    if (recs.some((r) => r.type === 'CNAME') && recs.length > 1) w.error.push(`CNAME at ${name} beside other records`);
    const seen = new Set<string>();
    for (const r of recs) {
      if (seen.has(recKey(r))) w.error.push(`duplicate ${recKey(r)}`);
      seen.add(recKey(r));
    }
  }
  if (w.error.length) return { accept: false, statuses: [422], why: w.error };

  // One TTL per RRset: an explicit TTL sets it; else the RRset keeps the TTL it had while any of
  // its records stays (never moved); records moved in or created without a TTL take the RRset's.
  // An RRset without such a record and without explicit TTL: the zone default, the old RRset's
  // TTL or that of a record moved in are all defensible, so any of them is accepted.
  const ttls = new Map<string, Set<number | null>>();
  const beforeTtl = new Map(before.map((r) => [rrKey(r.name, r.type), r.ttl]));
  const rrsets = new Map<string, MRec[]>();
  for (const r of final) rrsets.set(rrKey(r.name, r.type), [...(rrsets.get(rrKey(r.name, r.type)) ?? []), r]);
  for (const [k, recs] of rrsets) {
    const explicit = w.explicit.get(k);
    if (explicit) {
      ttls.set(k, explicit);
      continue;
    }
    const anchors = recs.filter((r) => r.origName !== null && !r.moved);
    if (anchors.length) {
      ttls.set(k, new Set([anchors[0]!.origTtl]));
      continue;
    }
    const allowed = new Set<number | null>([null]);
    if (beforeTtl.has(k)) allowed.add(beforeTtl.get(k)!);
    for (const r of recs) if (r.origName !== null) allowed.add(r.ttl).add(r.origTtl);
    ttls.set(k, allowed);
  }
  return { accept: true, final, ttls };
}

const UNKNOWN_ID = 'rec_unknownrecordthatneverexisted';

/**
 * Turns a generated item into the JSON item sent and its meaning for the model; null when the
 * item names a record and there is none to name (the item is left out).
 */
async function resolveItem(
  item: GenItem,
  ctx: { zone: string; before: ApiRecord[]; deleted: ApiRecord[]; etagOf: (id: string) => Promise<string> },
): Promise<Resolved | null> {
  const users = ctx.before.filter((r) => !r.system && !ctx.deleted.includes(r));
  const systems = ctx.before.filter((r) => r.system);
  const nameRaw = (n: string) => n.replaceAll('{zone}', ctx.zone);
  const target = (ref: Ref): ApiRecord | null | 'none' => {
    if (ref.k === 'user') return users.length ? users[ref.n % users.length]! : 'none';
    if (ref.k === 'system') return systems[ref.n % systems.length]!;
    if (ref.k === 'deleted') return ctx.deleted.length ? ctx.deleted[0]! : 'none';
    return null;
  };
  const ttlChecks = (w: Working, ttl: TtlPick, name: string | null, type: string) => {
    if (ttl === 'omit') return;
    if (ttl !== null && ttl < 60) {
      w.schemaError.push(`ttl ${ttl}`);
      return;
    }
    if (name === null) return;
    const k = rrKey(name, type);
    w.explicit.set(k, new Set([...(w.explicit.get(k) ?? []), ttl]));
  };
  const ifMatch = async (pick: IfMatchPick, t: ApiRecord | null) =>
    pick === 'none' ? {} : { if_match: pick === 'good' && t ? await ctx.etagOf(t.id) : '"not-the-etag"' };
  const preconditionFails = (pick: IfMatchPick, t: ApiRecord | null) => pick === 'bad' && t !== null;

  switch (item.op) {
    case 'create': {
      const entry = dataEntry(item.type, item.data);
      const name = NAMES[item.name]!;
      const record: Record<string, unknown> = { type: item.type, name: nameRaw(item.name), data: entry.data };
      if (item.ttl !== 'omit') record.ttl = item.ttl;
      if (item.comment !== 'omit') record.comment = item.comment;
      return {
        body: { op: 'create', record },
        apply: (w) => {
          ttlChecks(w, item.ttl, name, item.type);
          if (!USER_TYPES.has(item.type)) return void w.error.push(`type ${item.type}`);
          if (name === null) return void w.error.push(`name ${item.name}`);
          if (item.type === 'CNAME' && name === '@') return void w.error.push('CNAME at the apex');
          if (entry.content === null) return void w.error.push(`data ${JSON.stringify(entry.data)}`);
          w.recs.set(`new${w.nextNew++}`, {
            id: null,
            name,
            type: item.type,
            content: entry.content,
            ttl: item.ttl === 'omit' ? null : item.ttl,
            comment: item.comment === 'omit' ? null : item.comment,
            system: false,
            origName: null,
            origTtl: null,
            moved: false,
          });
        },
      };
    }
    case 'update': {
      const t = target(item.ref);
      if (t === 'none') return null;
      const id = t?.id ?? UNKNOWN_ID;
      const type = (t?.type ?? 'A') as AnyType;
      const entry = item.data === 'omit' || !t || t.system ? null : dataEntry(type, item.data);
      const record: Record<string, unknown> = {};
      if (item.name !== 'omit') record.name = nameRaw(item.name);
      if (item.data !== 'omit') record.data = entry ? entry.data : { address: '192.0.2.9' };
      if (item.ttl !== 'omit') record.ttl = item.ttl;
      if (item.comment !== 'omit') record.comment = item.comment;
      if (item.sendType !== 'omit') record.type = item.sendType === 'same' ? type : type === 'TXT' ? 'A' : 'TXT';
      const newName = item.name === 'omit' ? undefined : NAMES[item.name]!;
      const fails = preconditionFails(item.ifMatch, t);
      return {
        body: { op: 'update', id, ...(await ifMatch(item.ifMatch, t)), record },
        apply: (w) => {
          if (fails) w.precondition.push(`if_match ${id}`);
          const cur = w.recs.get(id);
          ttlChecks(w, item.ttl, null, type);
          if (!cur) return void w.error.push(`update of missing ${id}`);
          if (cur.system) return void w.readonly.push(`update of system ${cur.type}`);
          if (item.sendType === 'other') return void w.error.push('type change');
          const name = newName === undefined ? cur.name : newName;
          if (name === null) return void w.error.push(`name ${item.name}`);
          if (cur.type === 'CNAME' && name === '@') return void w.error.push('CNAME to the apex');
          if (entry && entry.content === null) return void w.error.push(`data ${JSON.stringify(entry.data)}`);
          ttlChecks(w, item.ttl, name, cur.type);
          w.recs.set(id, {
            ...cur,
            name,
            content: entry ? entry.content! : cur.content,
            ttl: item.ttl === 'omit' ? cur.ttl : item.ttl,
            comment: item.comment === 'omit' ? cur.comment : item.comment,
            moved: cur.moved || name !== cur.name,
          });
        },
      };
    }
    case 'delete': {
      const t = target(item.ref);
      if (t === 'none') return null;
      if (t && !t.system && !ctx.deleted.includes(t)) ctx.deleted.push(t);
      const id = t?.id ?? UNKNOWN_ID;
      const fails = preconditionFails(item.ifMatch, t);
      return {
        body: { op: 'delete', id, ...(await ifMatch(item.ifMatch, t)) },
        apply: (w) => {
          if (fails) w.precondition.push(`if_match ${id}`);
          const cur = w.recs.get(id);
          if (!cur) return void w.error.push(`delete of missing ${id}`);
          if (cur.system) return void w.readonly.push(`delete of system ${cur.type}`);
          w.recs.delete(id);
        },
      };
    }
    case 'replace_rrset': {
      const name = NAMES[item.name]!;
      const entries = item.records.map((p) => dataEntry(item.type, p));
      return {
        body: {
          op: 'replace_rrset',
          name: nameRaw(item.name),
          type: item.type,
          ...(item.ttl === 'omit' ? {} : { ttl: item.ttl }),
          records: entries.map((e) => e.data),
        },
        apply: (w) => {
          ttlChecks(w, item.ttl, name, item.type);
          if (!USER_TYPES.has(item.type)) return void w.error.push(`type ${item.type}`);
          if (name === null) return void w.error.push(`name ${item.name}`);
          if (item.type === 'CNAME' && name === '@') return void w.error.push('CNAME at the apex');
          if (entries.some((e) => e.content === null)) return void w.error.push('replace_rrset data');
          const contents = entries.map((e) => e.content!);
          if (new Set(contents).size !== contents.length) return void w.error.push('replace_rrset lists a record twice');
          const current = [...w.recs.entries()].filter(([, r]) => r.name === name && r.type === item.type);
          // Records whose content stays keep their identity and comment; the others go, and so do
          // copies an earlier item made (the RRset becomes exactly the listed records: one each).
          const keep = new Map<string, [string, MRec]>();
          for (const [key, r] of current) {
            if (contents.includes(r.content) && !keep.has(r.content)) keep.set(r.content, [key, r]);
            else w.recs.delete(key);
          }
          for (const content of contents) {
            const kept = keep.get(content);
            if (kept) {
              if (item.ttl !== 'omit') w.recs.set(kept[0], { ...kept[1], ttl: item.ttl });
            } else {
              w.recs.set(`new${w.nextNew++}`, {
                id: null,
                name,
                type: item.type,
                content,
                ttl: null,
                comment: null,
                system: false,
                origName: null,
                origTtl: null,
                moved: false,
              });
            }
          }
        },
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The service, the database, and reading a zone both ways.

let lab: TestService;
let api: ApiClient;
let db: pg.Client;
let runCounter = 0;
/** What the runs exercised (printed at the end: a property that only ever sees 422 proves little). */
const stats = { runs: 0, sets: 0, dryRuns: 0, statuses: new Map<number, number>() };

beforeAll(async () => {
  // The API alone: what is checked is what the API stores (publication moves the SOA serial).
  lab = await startTestService({ env: { ROLES: 'api' } });
  // Enough requests and zones for every run and for fast-check's shrinking.
  const raised = await lab
    .as(lab.tokens.platform)
    .patch(`/tenants/${lab.tokens.tenants.customers[0]}`, { limits: { api_rate_limit_per_minute: 1_000_000, max_zones: 100_000 } });
  expect(raised.status, raised.text).toBe(200);
  api = lab.as(lab.tokens.customers[0]);
  db = new pg.Client({ connectionString: lab.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await lab?.stop();
});

interface DbSnapshot {
  records: Record<string, unknown>[];
  zone: Record<string, unknown>;
  changeSets: number;
}

async function dbSnapshot(zoneId: string): Promise<DbSnapshot> {
  const records = await db.query(
    `SELECT id, name, name_sort, type, ttl, data, content, comment, false AS system, last_changeset_id, created_at, updated_at
       FROM records WHERE zone_id = $1 ORDER BY id`,
    [zoneId],
  );
  const zone = await db.query('SELECT * FROM zones WHERE id = $1', [zoneId]);
  const count = await db.query('SELECT count(*)::int AS n FROM change_sets WHERE zone_id = $1', [zoneId]);
  return { records: records.rows, zone: zone.rows[0], changeSets: count.rows[0].n };
}

async function listing(zone: string): Promise<{ text: string; records: ApiRecord[] }> {
  const res = await api.get(`/zones/${zone}/records?limit=500`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.pagination.has_more).toBe(false);
  return { text: res.text, records: res.body.data };
}

/** Invariants every stored zone satisfies, whatever was sent. */
/** `rendered`: the API's view, which shows the SOA and apex NS the build renders (none is stored). */
function checkInvariants(rows: { name: string; type: string; ttl: number | null; content: string; system: boolean }[], where: string, rendered: boolean) {
  const byName = new Map<string, typeof rows>();
  const ttlByRrset = new Map<string, Set<number | null>>();
  const seen = new Set<string>();
  for (const r of rows) {
    byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
    const k = rrKey(r.name, r.type);
    ttlByRrset.set(k, new Set([...(ttlByRrset.get(k) ?? []), r.ttl]));
    expect(seen.has(recKey(r)), `${where}: duplicate ${recKey(r)}`).toBe(false);
    seen.add(recKey(r));
  }
  for (const [name, recs] of byName) {
    if (recs.some((r) => r.type === 'CNAME')) expect(recs.map(recKey), `${where}: CNAME at ${name} is not alone`).toHaveLength(1);
  }
  expect(
    rows.filter((r) => r.name === '@' && r.type === 'CNAME'),
    `${where}: CNAME at the apex`,
  ).toEqual([]);
  for (const [k, ttls] of ttlByRrset) expect([...ttls], `${where}: RRset ${k} has several TTLs`).toHaveLength(1);
  const system = rows.filter((r) => r.system);
  expect(system.map((r) => `${r.name} ${r.type}`).sort(), `${where}: system records`).toEqual(rendered ? ['@ NS', '@ NS', '@ SOA'] : []);
}

const comparable = (r: { id: string; name: string; type: string; ttl: number | null; content: string; comment: string | null; system: boolean }) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  ttl: r.ttl,
  content: r.content,
  comment: r.comment,
  system: r.system,
});
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// ---------------------------------------------------------------------------------------------

async function runSequence(sets: GenSet[]) {
  const zone = `cs${++runCounter}-${Date.now().toString(36)}.example`;
  const created = await api.post('/zones', { name: zone });
  expect(created.status, created.text).toBe(201);
  const zoneId: string = created.body.id;
  // Nothing of the SOA and apex NS is stored: the build and the API render them.
  expect((await dbSnapshot(zoneId)).records.filter((r) => r.type === 'SOA' || (r.name === '@' && r.type === 'NS'))).toEqual([]);

  let state = await listing(zone);
  const systemRecords = state.records.filter((r) => r.system).map(comparable);
  expect(systemRecords).toHaveLength(3);
  let snapshot = await dbSnapshot(zoneId);
  const trace: string[] = [`zone ${zone}`];

  for (const [setIndex, set] of sets.entries()) {
    const etagOf = async (id: string) => {
      const r = await api.get(`/zones/${zone}/records/${id}`);
      expect(r.status, r.text).toBe(200);
      return r.headers.get('etag')!;
    };
    const resolved: Resolved[] = [];
    const deleted: ApiRecord[] = [];
    for (const item of set.items) {
      const r = await resolveItem(item, { zone, before: state.records, deleted, etagOf });
      if (r) resolved.push(r);
    }
    if (resolved.length === 0) continue;
    const body: Record<string, unknown> = { changes: resolved.map((r) => r.body) };
    if (set.zoneIfMatch !== 'none') {
      const z = await api.get(`/zones/${zone}`);
      body.zone_if_match = set.zoneIfMatch === 'good' ? z.headers.get('etag') : '"stale-zone-etag"';
    }
    const outcome = predict(state.records, resolved, set.zoneIfMatch === 'bad');
    trace.push(`set ${setIndex}: ${JSON.stringify(body)}`);
    if (process.env.FC_DEBUG) console.log(outcome.accept ? 'ACCEPT' : outcome.why.map((w) => w.replace(/rec_\w+/, 'ID')).join(' | '));
    trace.push(`  model: ${outcome.accept ? 'accept' : `reject ${outcome.statuses.join('/')} (${outcome.why.join('; ')})`}`);
    const where = () => `${trace.join('\n')}\nbefore: ${JSON.stringify(state.records.map(comparable))}`;

    const expectUnchanged = async (label: string) => {
      const after = await listing(zone);
      expect(after.text, `${label}: listing changed\n${where()}`).toBe(state.text);
      expect(await dbSnapshot(zoneId), `${label}: database changed\n${where()}`).toEqual(snapshot);
    };

    let dryRun: ApiResponse | null = null;
    if (set.dryRunFirst) {
      dryRun = await api.post(`/zones/${zone}/changesets`, { ...body, dry_run: true });
      trace.push(`  dry run: ${dryRun.status} ${dryRun.text.slice(0, 600)}`);
      if (outcome.accept) expect(dryRun.status, `dry run\n${where()}`).toBe(200);
      else expect(outcome.statuses, `dry run status\n${where()}`).toContain(dryRun.status);
      await expectUnchanged('dry run');
    }

    const res = await api.post(`/zones/${zone}/changesets`, body);
    stats.sets++;
    if (dryRun) stats.dryRuns++;
    stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
    trace.push(`  response: ${res.status} ${res.text.slice(0, 600)}`);

    if (!outcome.accept) {
      expect(outcome.statuses, `status\n${where()}`).toContain(res.status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      await expectUnchanged('rejected set');
      continue;
    }

    expect(res.status, `status\n${where()}`).toBe(201);
    expect(res.body).toMatchObject({ state: 'pending', kind: 'records', items: resolved.length });
    expect(
      res.body.results.map((r: { index: number; op: string; status: string }) => [r.index, r.op, r.status]),
      where(),
    ).toEqual(resolved.map((r, i) => [i, r.body.op, 'applied']));

    const after = await listing(zone);
    const afterDb = await dbSnapshot(zoneId);
    const msg = () => `${where()}\nafter: ${JSON.stringify(after.records.map(comparable))}`;

    // The API shows what the database holds, and the rendered SOA and apex NS; both satisfy the invariants.
    expect(
      after.records
        .filter((r) => !r.system)
        .map(comparable)
        .sort(byId),
      msg(),
    ).toEqual(afterDb.records.map((r) => comparable(r as never)).sort(byId));
    checkInvariants(after.records, `API ${msg()}`, true);
    checkInvariants(afterDb.records as never, `database ${msg()}`, false);
    expect(after.records.filter((r) => r.system).map(comparable), `system records touched\n${msg()}`).toEqual(systemRecords);

    // Exactly one change set more, and it is the one returned.
    expect(afterDb.changeSets, msg()).toBe(snapshot.changeSets + 1);
    expect(afterDb.zone.changeset_seq, msg()).toBe((snapshot.zone.changeset_seq as number) + 1);
    expect(afterDb.zone.last_changeset_id, msg()).toBe(res.body.id);

    // The model: same records (by name/type/content), same ttl/comment, ids kept where it keeps them.
    const server = new Map(after.records.map((r) => [recKey(r), r]));
    const model = new Map(outcome.final.map((r) => [recKey(r), r]));
    expect([...server.keys()].sort(), `records differ from the model\n${msg()}`).toEqual([...model.keys()].sort());
    const beforeIds = new Set(state.records.map((r) => r.id));
    for (const [k, m] of model) {
      const s = server.get(k)!;
      expect(s.comment, `comment of ${k}\n${msg()}`).toBe(m.comment);
      expect(s.system).toBe(m.system);
      if (m.id) expect(s.id, `id of ${k} (kept by the model)\n${msg()}`).toBe(m.id);
      else expect(beforeIds.has(s.id), `${k} is new in the model but reuses an id\n${msg()}`).toBe(false);
      const allowed = outcome.ttls.get(rrKey(m.name, m.type))!;
      expect([...allowed], `ttl of ${k} is ${s.ttl}\n${msg()}`).toContain(s.ttl);
    }

    // Summary counts as the model sees the diff (TTLs as stored).
    const finalIds = new Set(after.records.map((r) => r.id));
    const updated = state.records.filter((b) => {
      const a = after.records.find((r) => r.id === b.id);
      return a && (a.name !== b.name || a.content !== b.content || a.comment !== b.comment || a.ttl !== b.ttl);
    }).length;
    const expectedSummary = {
      created: outcome.final.filter((r) => r.id === null).length,
      updated,
      deleted: state.records.filter((r) => !finalIds.has(r.id)).length,
    };
    expect(res.body.summary, `summary\n${msg()}`).toEqual(expectedSummary);
    if (dryRun) expect(dryRun.body.summary, `dry-run summary\n${msg()}`).toEqual(expectedSummary);

    state = after;
    snapshot = afterDb;
  }
}

// Counterexamples found by this property, run first on every run (fast-check `examples`). Some
// depend on the order PostgreSQL returns rows in, which random runs rarely line up.
const set = (...items: GenItem[]): GenSet => ({ items, zoneIfMatch: 'none', dryRunFirst: false });
const create = (type: RType, name: string, n: number, ttl: TtlPick = 'omit'): GenItem => ({
  op: 'create',
  type,
  name,
  data: { bad: false, n },
  ttl,
  comment: 'omit',
});
const update = (n: number, change: { name?: string; data?: number; ttl?: TtlPick; comment?: CommentPick }): GenItem => ({
  op: 'update',
  ref: { k: 'user', n },
  name: change.name ?? 'omit',
  data: change.data === undefined ? 'omit' : { bad: false, n: change.data },
  ttl: change.ttl !== undefined ? change.ttl : 'omit',
  comment: change.comment !== undefined ? change.comment : 'omit',
  sendType: 'omit',
  ifMatch: 'none',
});
const REGRESSIONS: [GenSet[]][] = [
  // A TTL-only update of one record of an RRset must align the others (they were not loaded).
  [[set(create('A', '@', 0, 300), create('A', '@', 1, 300)), set(update(0, { ttl: null }))]],
  // An update to the content of a sibling is a duplicate (422), not a constraint error at commit.
  [[set(create('A', 'www', 0), create('A', 'www', 1)), set(update(0, { data: 1 }))]],
  // An MX updated to its own data changes nothing (stored jsonb reorders the keys).
  [[set(create('MX', '@', 0)), set(update(0, { data: 0 }))]],
  // A record moved into an RRset, then changed again, takes the RRset's TTL (not its own).
  [[set(create('A', 'mail', 1, 3600), create('A', 'www', 0, 300)), set(update(0, { name: 'www' }), update(0, { comment: 'first' }))]],
  // replace_rrset without a TTL keeps the RRset's TTL, not that of a record moved in before it.
  [
    [
      set(create('A', 'mail', 1, 3600), create('A', 'www', 0, 300)),
      set(update(0, { name: 'www' }), {
        op: 'replace_rrset',
        type: 'A',
        name: 'www',
        ttl: 'omit',
        records: [
          { bad: false, n: 0 },
          { bad: false, n: 1 },
        ],
      }),
    ],
  ],
];

describe('change sets, property-based over HTTP and PostgreSQL', () => {
  it('keep every zone invariant, match the model when stored, and change nothing when refused', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbSet, { minLength: 1, maxLength: 6 }), async (sets) => {
        stats.runs++;
        await runSequence(sets);
      }),
      {
        numRuns: Number(process.env.FC_RUNS ?? 25),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
        ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
        endOnFailure: process.env.FC_SHRINK === '0',
        examples: process.env.FC_EX ? [[JSON.parse(process.env.FC_EX) as GenSet[]]] : REGRESSIONS,
      },
    );
    console.info(
      `change-set properties: ${stats.runs} runs, ${stats.sets} sets (${stats.dryRuns} with a dry run first); responses ${[...stats.statuses]
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(', ')}`,
    );
  });
});
