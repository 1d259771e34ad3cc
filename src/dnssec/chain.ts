// The chain check (docs/dnssec.md "Checks"): from the trust anchor down to the zone, the way a
// validating resolver walks it (RFC 4035 §5): at every zone cut the DS set, signed by the parent's
// keys, must match a key of the child's DNSKEY set, which that key signs; at the end the zone's SOA
// must verify under its own keys. Every question goes to one server (`ask`): in the lab the
// service's own nameserver, which hosts the lab root, the TLDs and the zone (as `delv @lab` would).
import { TYPE } from '../../nameserver/types.js';
import { splitLabels } from '../../nameserver/wire/name.js';
import type { MessageRecord } from '../../nameserver/wire/parseMessage.js';
import type { DnsReply } from '../../nameserver/client/dnsQuery.js';
import { dsRdata, keyTag } from '../../nameserver/dnssec/keys.js';
import { verifyRRsig } from '../../nameserver/dnssec/sign.js';

export type Ask = (name: string, type: number) => Promise<DnsReply>;

export interface ChainResult {
  valid: boolean;
  /** Why not, in words a customer can act on; null when valid. */
  reason: string | null;
}

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The RRset of `type` at `name` in a reply's answer section, with the RRSIGs over it. */
function signedSet(records: MessageRecord[], name: string, type: number) {
  const set = records.filter((r) => r.type === type && sameName(r.name, name));
  const sigs = records.filter((r) => r.type === TYPE.RRSIG && sameName(r.name, name) && r.rdata.length >= 2 && r.rdata.readUInt16BE(0) === type);
  return set.length === 0
    ? null
    : { rrset: { name: name.toLowerCase(), type, ttl: set[0]!.ttl, rdatas: set.map((r) => r.rdata) }, sigs: sigs.map((r) => r.rdata) };
}

/** RRSIG RDATA: key tag at octets 16–17 (RFC 4034 §3.1). */
const sigKeyTag = (rrsig: Buffer) => rrsig.readUInt16BE(16);

/** True when one of `sigs` over `rrset` verifies under one of `keys` (DNSKEY RDATA). */
function verifiedBy(rrset: { name: string; type: number; ttl: number; rdatas: Buffer[] }, sigs: Buffer[], keys: Buffer[], now: number): boolean {
  for (const sig of sigs) {
    for (const key of keys) {
      if (keyTag(key) === sigKeyTag(sig) && verifyRRsig(rrset, sig, key, now)) return true;
    }
  }
  return false;
}

/** The names from the root down to `zone`: '', 'test', 'shop.test'. */
function namesDownTo(zone: string): string[] {
  const labels = zone === '' ? [] : splitLabels(zone);
  const names = [''];
  for (let i = labels.length - 1; i >= 0; i--) names.push(labels.slice(i).join('.'));
  return names;
}

/**
 * Walks from `anchors` (DS RDATA of the root's KSKs) to `zone`. Names between cuts are skipped:
 * a name is a cut when the server answers its SOA with that owner.
 */
export async function validateChain(ask: Ask, zone: string, anchors: Buffer[], now = Math.floor(Date.now() / 1000)): Promise<ChainResult> {
  let trustedDs = anchors;
  let parentKeys: Buffer[] | null = null;
  const invalid = (reason: string): ChainResult => ({ valid: false, reason });
  for (const name of namesDownTo(zone)) {
    const shown = name === '' ? '.' : `${name}.`;
    if (name !== '') {
      const soa = await ask(name, TYPE.SOA);
      if (soa.kind !== 'reply') return invalid(`${shown} did not answer: ${soa.message}`);
      const isCut = soa.answer.some((r) => r.type === TYPE.SOA && sameName(r.name, name));
      if (!isCut && name !== zone) continue;
      const ds = await ask(name, TYPE.DS);
      if (ds.kind !== 'reply') return invalid(`the DS of ${shown} could not be asked: ${ds.message}`);
      const dsSet = signedSet(ds.answer, name, TYPE.DS);
      if (!dsSet) return invalid(`no DS for ${shown} at its parent: the chain of trust ends above it`);
      if (!verifiedBy(dsSet.rrset, dsSet.sigs, parentKeys ?? [], now)) return invalid(`the DS set of ${shown} is not signed by its parent's keys`);
      trustedDs = dsSet.rrset.rdatas;
    }
    const dnskey = await ask(name, TYPE.DNSKEY);
    if (dnskey.kind !== 'reply') return invalid(`the DNSKEY of ${shown} could not be asked: ${dnskey.message}`);
    const keySet = signedSet(dnskey.answer, name, TYPE.DNSKEY);
    if (!keySet) return invalid(`${shown} publishes no DNSKEY`);
    const anchored = keySet.rrset.rdatas.filter((key) => trustedDs.some((d) => d.equals(dsRdata(name, key))));
    if (anchored.length === 0)
      return invalid(`no DNSKEY of ${shown} matches its DS ${trustedDs.length ? `(key tags ${trustedDs.map((d) => d.readUInt16BE(0)).join(', ')})` : ''}`);
    if (!verifiedBy(keySet.rrset, keySet.sigs, anchored, now)) return invalid(`the DNSKEY set of ${shown} is not signed by the key its DS names`);
    parentKeys = keySet.rrset.rdatas;
  }
  const soa = await ask(zone, TYPE.SOA);
  if (soa.kind !== 'reply') return invalid(`the SOA of ${zone}. could not be asked: ${soa.message}`);
  const soaSet = signedSet(soa.answer, zone, TYPE.SOA);
  if (!soaSet) return invalid(`${zone}. answered no SOA`);
  if (!verifiedBy(soaSet.rrset, soaSet.sigs, parentKeys ?? [], now)) return invalid(`the SOA of ${zone}. does not verify under its DNSKEY set`);
  return { valid: true, reason: null };
}
