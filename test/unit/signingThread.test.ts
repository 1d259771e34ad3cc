// The signing thread (docs/dnssec.md "The signing thread"): a version signed whole there is byte
// for byte the version the build's own thread makes (Ed25519 signatures are deterministic, so
// every RRSIG compares too), on a first signing and on a re-signing that keeps earlier
// signatures; a record that cannot be published fails the build as it would in the build's
// thread; a thread that dies answers with an error instead of leaving the build waiting.
import { describe, expect, it } from 'vitest';
import { generateZoneKey } from '../../nameserver/dnssec/keys.js';
import type { SignPolicy, SigningKeys } from '../../nameserver/dnssec/signZone.js';
import { BuildError } from '../../src/publication/version/collectTouched.js';
import type { StoredRecord } from '../../src/db/repositories/versionStore.js';
import { type SigningThreadOptions, usesSigningThread, versionInSigningThread } from '../../src/publication/version/signingThread.js';
import type { DraftRecord } from '../../src/publication/version/versionDraft.js';
import {
  type DraftInputs,
  draftFrom,
  type JsonbParam,
  type VersionInputs,
  type VersionRow,
  versionRow,
} from '../../src/publication/version/versionFromRead.js';
import { fromStored, type StoredWireRecord } from '../../src/versionRecords/zoneRecords.js';

const now = Math.floor(Date.now() / 1000);
const policy: SignPolicy = {
  denial: 'nsec3',
  window: { inception: now - 3600, expiration: now + 14 * 86400 },
  refreshBefore: now + 7 * 86400,
  dnskeyTtl: 3600,
  cds: 'keys',
};
const keys: SigningKeys = { ksks: [generateZoneKey('ksk', 15)], zsks: [generateZoneKey('zsk', 15)], publishedOnly: [] };
const zone = { id: 'zon_thread', name: 'thread.example', defaultTtl: 3600, soaEmail: 'hostmaster@thread.example' };
const inputs = (serial: number, fromSerial: number | null): VersionInputs => ({
  zone,
  serial,
  fromSerial,
  nameservers: ['ns1.dns.test', 'ns2.dns.test'],
  signing: { keys, policy },
});
const always: SigningThreadOptions = { fromRecords: 0, heapMb: null };

/** A zone of `n` names: addresses, mail, text, a delegation with glue and a wildcard. */
function storedZone(n: number): StoredRecord[] {
  const records: StoredRecord[] = [
    { recordId: 'rec_mx', name: '@', type: 'MX', ttl: 3600, data: { preference: 10, exchange: 'mail.thread.example' } },
    { recordId: 'rec_wild', name: '*.w', type: 'TXT', ttl: 300, data: { text: 'wild' } },
    { recordId: 'rec_ns', name: 'sub', type: 'NS', ttl: 3600, data: { nameserver: 'ns.sub.thread.example' } },
    { recordId: 'rec_glue', name: 'ns.sub', type: 'A', ttl: 3600, data: { address: '192.0.2.53' } },
  ];
  for (let i = 0; i < n; i++)
    records.push({ recordId: `rec_${i}`, name: `h${i}.deep`, type: 'A', ttl: 3600, data: { address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` } });
  return records;
}

/** What the nameservers serve after `row` (published_records), as the next build reads it. */
function servedAfter(row: VersionRow): DraftRecord[] {
  const upserted = records(row.upserted) as (StoredWireRecord & { record_id: string })[];
  return upserted.map((r) => ({ recordId: r.record_id, ...fromStored(r) }));
}

const jsonText = (v: JsonbParam) => (typeof v === 'string' ? v : v.subarray(1).toString());
/** The records of JSON arrays written one statement each, in their order. */
const records = (arrays: JsonbParam[]) => arrays.flatMap((rows) => JSON.parse(jsonText(rows)) as StoredWireRecord[]);
/** A row as text: the thread's jsonb in binary form (version octet 1) and text[] literal read back. */
function asText(row: VersionRow) {
  expect([...row.removed, ...row.added, ...row.upserted].every((v) => typeof v === 'string' || v[0] === 1)).toBe(true);
  const gone = typeof row.gone === 'string' ? (row.gone === '{}' ? [] : row.gone.slice(2, -2).split('","')) : row.gone;
  return { ...row, removed: records(row.removed), added: records(row.added), upserted: records(row.upserted), gone };
}

const inThisThread = async (v: VersionInputs, read: DraftInputs) => versionRow(await draftFrom(v, read), 'fingerprint');

describe('the signing thread', () => {
  it('makes the very version the build makes in its own thread: a first signing, then one that keeps earlier signatures', async () => {
    const first: DraftInputs = { stored: storedZone(3000), served: [], system: [], rendered: {} };
    const draft = await draftFrom(inputs(2026112500, null), first);
    const here = await versionRow(draft, 'fingerprint');
    const there = await versionInSigningThread(inputs(2026112500, null), first, 'fingerprint', always);
    expect(Buffer.isBuffer(there.added[0])).toBe(true);
    expect(asText(there)).toEqual(asText(here));
    // The diff and the rows to upsert, split for several statements (as the thread does from
    // 20,000 on), are the same records in the same order.
    const split = await versionRow(draft, 'fingerprint', 5000);
    expect([here.upserted.length, split.upserted.length]).toEqual([1, 3]);
    expect([here.added.length, split.added.length]).toEqual([1, 3]);
    expect(asText(split)).toEqual(asText(here));
    expect(records(there.added).filter((r) => r.type === 46).length).toBeGreaterThan(6000);

    // A record changed and one removed, the keys kept: every other signature stands (refresh not due).
    const stored = storedZone(3000).filter((r) => r.recordId !== 'rec_7');
    stored[10] = { ...stored[10]!, data: { address: '198.51.100.10' } };
    const next: DraftInputs = { stored, served: servedAfter(here), system: JSON.parse(here.system!).map(fromStored), rendered: {} };
    const hereNext = await inThisThread(inputs(2026112501, 2026112500), next);
    const thereNext = await versionInSigningThread(inputs(2026112501, 2026112500), next, 'fingerprint', always);
    expect(asText(thereNext)).toEqual(asText(hereNext));
    expect(asText(thereNext).gone).toContain('rec_7');
  });

  it('is used from DNSSEC_SIGNING_THREAD_FROM records read on, in a thread with a heap of its own', async () => {
    const read: DraftInputs = { stored: storedZone(10), served: [], system: [], rendered: {} };
    expect(usesSigningThread(read, { fromRecords: 15, heapMb: null })).toBe(false);
    expect(usesSigningThread(read, { fromRecords: 14, heapMb: null })).toBe(true);
    // A heap too small for the thread to load in: the thread dies of it, this one is told.
    await expect(versionInSigningThread(inputs(1, null), read, null, { fromRecords: 0, heapMb: 1 })).rejects.toThrow(/^signing thread failed: .*memory limit/);
  });

  it('fails the build with a BuildError for a record that cannot be published, as the build thread does', async () => {
    const read: DraftInputs = {
      stored: [...storedZone(5), { recordId: 'rec_bad', name: 'bad', type: 'A', ttl: 60, data: { address: 'not-an-address' } }],
      served: [],
      system: [],
      rendered: {},
    };
    await expect(inThisThread(inputs(1, null), read)).rejects.toBeInstanceOf(BuildError);
    const failure = versionInSigningThread(inputs(1, null), read, null, always);
    await expect(failure).rejects.toBeInstanceOf(BuildError);
    await expect(failure).rejects.toThrow(/^bad A: /);
  });

  it('answers with an error when signing throws in the thread (an RRset with two TTLs)', async () => {
    const stored = [...storedZone(5), { recordId: 'rec_ttl', name: 'h1.deep', type: 'A', ttl: 60, data: { address: '192.0.2.9' } }];
    const read: DraftInputs = { stored, served: [], system: [], rendered: {} };
    await expect(inThisThread(inputs(1, null), read)).rejects.toThrow(/different TTLs/);
    await expect(versionInSigningThread(inputs(1, null), read, null, always)).rejects.toThrow(/^signing thread: .*different TTLs/);
  });
});
