// Zones signed by software nobody here wrote (ldns-signzone and BIND's dnssec-signzone), read back into
// the records a snapshot is built from, for the tests that check our DNSSEC answers with outside
// validators (delv) and clients (kdig). The signed file is read with the service's own master-file
// lexer and presentation reader (src/domain/zonefile) and encoded by the wire codec, so no second
// reader is written for the tests.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rdataFromPresentation } from '../../src/domain/zonefile/rdataFromPresentation.js';
import { forEachLogicalRecord } from '../../src/domain/zonefile/tokenize.js';
import type { ZoneRecord } from '../../nameserver/types.js';
import { normalizeName } from '../../nameserver/wire/name.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { typeCode } from '../../nameserver/wire/rrTypes.js';

export interface SignedZone {
  origin: string;
  /** The signed zone as ldns-signzone wrote it. */
  text: string;
  records: ZoneRecord[];
  /** The key-signing key's DNSKEY RDATA in presentation: "257 3 13 <base64>". */
  kskDnskey: string;
  /** A directory holding the keys and files; removed by `remove`. */
  dir: string;
  remove(): void;
}

function run(tool: string, args: string[], cwd: string): string {
  const r = spawnSync(tool, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}

export interface SignOptions {
  nsec3: boolean;
  /**
   * NSEC3 opt-out (RFC 5155 §6). ldns-signzone only sets the flag and still gives unsigned
   * delegations an NSEC3 of their own; BIND's dnssec-signzone leaves them out, so it signs these.
   */
  optOut?: boolean;
  /** Delegations to give a DS record of a fresh key of their own (secure delegations). */
  childDs?: string[];
}

/**
 * Signs `unsigned` (a master file with `$ORIGIN <origin>.`) with a fresh ECDSA P-256 KSK and ZSK:
 * NSEC, or NSEC3 with SHA-1, no extra iterations and an empty salt (RFC 9276 §3.1) — by
 * ldns-signzone, or by dnssec-signzone for opt-out.
 */
export function signZone(origin: string, unsigned: string, options: SignOptions): SignedZone {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdns-signed-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    let text = unsigned.endsWith('\n') ? unsigned : `${unsigned}\n`;
    for (const child of options.childDs ?? []) {
      const key = run('ldns-keygen', ['-a', 'ECDSAP256SHA256', '-k', child], dir);
      text += `${fs.readFileSync(path.join(dir, `${key}.ds`), 'utf8').trim()}\n`;
    }
    fs.writeFileSync(path.join(dir, 'zone'), text);
    let ksk: string;
    let signed: string;
    if (options.optOut) {
      ksk = run('dnssec-keygen', ['-q', '-a', 'ECDSAP256SHA256', '-f', 'KSK', origin], dir);
      run('dnssec-keygen', ['-q', '-a', 'ECDSAP256SHA256', origin], dir);
      run('dnssec-signzone', ['-q', '-3', '-', '-H', '0', '-A', '-S', '-K', dir, '-o', origin, '-f', 'zone.signed', 'zone'], dir);
      // One record a line, names absolute: the form readZone takes.
      signed = run('ldns-read-zone', ['zone.signed'], dir);
    } else {
      ksk = run('ldns-keygen', ['-a', 'ECDSAP256SHA256', '-k', origin], dir);
      const zsk = run('ldns-keygen', ['-a', 'ECDSAP256SHA256', origin], dir);
      const nsec3 = options.nsec3 ? ['-n', '-t', '0', '-s', ''] : [];
      run('ldns-signzone', [...nsec3, '-o', origin, '-f', 'zone.signed', 'zone', ksk, zsk], dir);
      signed = fs.readFileSync(path.join(dir, 'zone.signed'), 'utf8');
    }
    const kskKey = fs.readFileSync(path.join(dir, `${ksk}.key`), 'utf8');
    const dnskey = /DNSKEY\s+(257\s+3\s+\d+\s+[A-Za-z0-9+/=\s]+?)\s*(;|$)/m.exec(kskKey);
    if (!dnskey) throw new Error(`no DNSKEY in ${ksk}.key: ${kskKey}`);
    return { origin, text: signed, records: readZone(signed), kskDnskey: dnskey[1]!.replace(/\s+/g, ' '), dir, remove };
  } catch (e) {
    remove();
    throw e;
  }
}

/**
 * The records of a master file in the form ldns-signzone and ldns-read-zone write: one record a
 * line, absolute owner, TTL and class given. Any type the wire codec knows, DNSSEC's included.
 */
export function readZone(text: string): ZoneRecord[] {
  const records: ZoneRecord[] = [];
  forEachLogicalRecord(text, (logical) => {
    const tokens = logical.tokens;
    if (tokens.length === 0) return;
    if (logical.errors.length > 0 || logical.blankOwner) throw new Error(`line ${logical.line}: not a record in the expected form`);
    const [owner, ttl, klass, mnemonic, ...rest] = tokens;
    if (!owner || !ttl || klass?.text.toUpperCase() !== 'IN' || !mnemonic) throw new Error(`line ${logical.line}: expected "owner ttl IN type rdata"`);
    const typeName = mnemonic.text.toUpperCase();
    const type = typeCode(typeName);
    const data = rdataFromPresentation(typeName, rest, '');
    if (type === null || !data.ok) throw new Error(`line ${logical.line}: ${data.ok ? `unknown type ${typeName}` : data.detail}`);
    records.push({ name: normalizeName(owner.text), type, ttl: Number(ttl.text), rdata: encodeRdata(typeName, data.value) });
  });
  return records;
}

/** A delv trust-anchors file that trusts `zone`'s KSK: `delv -a <file> +root=<origin>` validates inside it. */
export function delvAnchors(zone: SignedZone): string {
  const [flags, protocol, algorithm, ...key] = zone.kskDnskey.split(' ');
  const file = path.join(zone.dir, 'anchors.conf');
  fs.writeFileSync(file, `trust-anchors {\n  "${zone.origin}." static-key ${flags} ${protocol} ${algorithm} "${key.join('')}";\n};\n`);
  return file;
}
