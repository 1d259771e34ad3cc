// The signing thread (docs/dnssec.md "The signing thread"): a version signed whole from a large
// read is made in a worker thread of its own, started for that one version. Signing, the
// version's JSON and above all the garbage collection of its hundreds of thousands of records
// happen on that thread's heap, not on the one that answers API requests and DNS queries. What
// the build read goes over in slices (each cloned in a turn of its own); the version comes back
// as jsonb in binary form, in buffers that are moved, not copied.
//
// A worker thread cannot load TypeScript by itself: signingThread.mjs registers tsx, under
// `npm start` (tsx) as under vitest, then calls serveSigningThread.
import { parentPort, Worker } from 'node:worker_threads';
import type { SigningKeys } from '../../../nameserver/dnssec/signZone.js';
import { BuildError } from './collectTouched.js';
import type { StoredRecord } from '../../db/repositories/versionStore.js';
import type { DraftRecord } from './versionDraft.js';
import { type DraftInputs, draftFrom, type JsonbParam, type VersionInputs, type VersionRow, versionRow } from './versionFromRead.js';

/** DNSSEC_SIGNING_THREAD_FROM and DNSSEC_SIGNING_THREAD_HEAP_MB (README.md, configuration). */
export interface SigningThreadOptions {
  /**
   * A version read with at least this many records (stored and served) is made in the signing
   * thread; a smaller one in the build's thread, in turns (a few thousand records sign in well
   * under a second, less than the thread takes to start).
   */
  fromRecords: number;
  /** The thread's heap bound (null: Node's default): a version too large for it fails its build, not the process. */
  heapMb: number | null;
  /** Records per statement that writes the version the thread made (default ROWS_PER_STATEMENT). */
  rowsPerStatement?: number;
}

/** Records per message: one slice is cloned in a few milliseconds. */
const SLICE = 2000;
/**
 * Records per statement of the version the thread made (its diff and the rows to upsert): pg
 * copies each statement's parameters into one buffer in one piece on the thread that answers
 * requests, a few milliseconds for 20,000 records where the diff of a zone of 100,000 records
 * signed whole (370,000 records, 55 MB) held it 0.5–1.7 s.
 */
const ROWS_PER_STATEMENT = 20_000;

type ToThread =
  | {
      kind: 'version';
      inputs: VersionInputs;
      fingerprint: string | null;
      system: DraftInputs['system'];
      rendered: DraftInputs['rendered'];
      rowsPerStatement: number;
    }
  | { kind: 'stored'; records: StoredRecord[] }
  | { kind: 'served'; records: DraftRecord[] }
  | { kind: 'end' };

type FromThread = { kind: 'row'; row: VersionRow } | { kind: 'failed'; message: string; buildError: boolean };

export const usesSigningThread = (read: DraftInputs, options: SigningThreadOptions) => read.stored.length + read.served.length >= options.fromRecords;

/**
 * versionRow(draftFrom(inputs, read)) made in the signing thread. Rejects with a BuildError where
 * the build in this thread would have (a record that cannot be published), with an Error when
 * the thread fails or stops without an answer: nothing is committed, and the build is tried again.
 */
export async function versionInSigningThread(
  inputs: VersionInputs,
  read: DraftInputs,
  fingerprint: string | null,
  options: SigningThreadOptions,
): Promise<VersionRow> {
  const worker = new Worker(
    new URL('./signingThread.mjs', import.meta.url),
    options.heapMb === null ? {} : { resourceLimits: { maxOldGenerationSizeMb: options.heapMb } },
  );
  const answer = new Promise<VersionRow>((resolve, reject) => {
    worker.once('message', (m: FromThread) => {
      if (m.kind === 'row') resolve(bufferedRow(m.row));
      else reject(m.buildError ? new BuildError(m.message) : new Error(`signing thread: ${m.message}`));
    });
    worker.once('messageerror', (err) => reject(err));
    worker.once('error', (err) => reject(new Error(`signing thread failed: ${err.message}`, { cause: err })));
    worker.once('exit', (code) => reject(new Error(`signing thread stopped (exit code ${code}) before it answered`)));
  });
  answer.catch(() => undefined); // awaited below, unless handing over failed first
  try {
    const post = (m: ToThread) => worker.postMessage(m);
    post({
      kind: 'version',
      inputs,
      fingerprint,
      system: read.system,
      rendered: read.rendered,
      rowsPerStatement: options.rowsPerStatement ?? ROWS_PER_STATEMENT,
    });
    for (const [kind, records] of [
      ['stored', read.stored],
      ['served', read.served],
    ] as const) {
      for (let i = 0; i < records.length; i += SLICE) {
        post({ kind, records: records.slice(i, i + SLICE) } as ToThread);
        await new Promise((r) => setImmediate(r));
      }
    }
    post({ kind: 'end' });
    return await answer;
  } finally {
    void worker.terminate();
  }
}

/** The thread's side: takes the inputs, answers with the version row (signingThread.mjs calls this). */
export function serveSigningThread(): void {
  const port = parentPort!;
  let version: Extract<ToThread, { kind: 'version' }> | null = null;
  const stored: StoredRecord[] = [];
  const served: DraftRecord[] = [];
  port.on('message', (m: ToThread) => {
    if (m.kind === 'version') version = m;
    else if (m.kind === 'stored') for (const r of m.records) stored.push(r);
    else if (m.kind === 'served') for (const r of m.records) served.push({ ...r, rdata: asBuffer(r.rdata) });
    else
      void answer(version!, stored, served).then((reply) => {
        port.postMessage(reply, reply.kind === 'row' ? transferables(reply.row) : []);
        port.close();
      });
  });
}

async function answer(v: Extract<ToThread, { kind: 'version' }>, stored: StoredRecord[], served: DraftRecord[]): Promise<FromThread> {
  try {
    const inputs: VersionInputs = { ...v.inputs, signing: v.inputs.signing && { ...v.inputs.signing, keys: keysAsBuffers(v.inputs.signing.keys) } };
    const read: DraftInputs = { stored, served, system: v.system.map((r) => ({ ...r, rdata: asBuffer(r.rdata) })), rendered: v.rendered };
    const row = await versionRow(await draftFrom(inputs, read), v.fingerprint, v.rowsPerStatement);
    return {
      kind: 'row',
      row: {
        ...row,
        removed: row.removed.map(jsonbBinary),
        added: row.added.map(jsonbBinary),
        upserted: row.upserted.map(jsonbBinary),
        gone: textArrayLiteral(row.gone),
      },
    };
  } catch (err) {
    return { kind: 'failed', message: (err as Error).message, buildError: err instanceof BuildError };
  }
}

/** A Buffer again: structured cloning hands a Buffer over as a plain Uint8Array. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function keysAsBuffers(keys: SigningKeys): SigningKeys {
  const key = (k: SigningKeys['ksks'][number]) => ({ ...k, publicKey: asBuffer(k.publicKey), privateKey: asBuffer(k.privateKey) });
  return { ksks: keys.ksks.map(key), zsks: keys.zsks.map(key), publishedOnly: keys.publishedOnly?.map(asBuffer) };
}

/** jsonb's binary input form (version 1, then the text), in memory of its own so that it can be moved to the other thread. */
function jsonbBinary(json: JsonbParam): Buffer {
  if (typeof json !== 'string') return json;
  const out = Buffer.allocUnsafeSlow(1 + Buffer.byteLength(json));
  out[0] = 1;
  out.write(json, 1);
  return out;
}

/** A text[] literal: one string crosses the threads instead of hundreds of thousands of ids. */
function textArrayLiteral(ids: VersionRow['gone']): string {
  return typeof ids === 'string' ? ids : `{${ids.map((id) => `"${id.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

function transferables(row: VersionRow): ArrayBuffer[] {
  return [...row.removed, ...row.added, ...row.upserted].filter((b): b is Buffer => typeof b !== 'string').map((b) => b.buffer as ArrayBuffer);
}

function bufferedRow(row: VersionRow): VersionRow {
  const buffered = (v: JsonbParam) => (typeof v === 'string' ? v : asBuffer(v));
  return { ...row, removed: row.removed.map(buffered), added: row.added.map(buffered), upserted: row.upserted.map(buffered) };
}
