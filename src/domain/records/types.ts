// The record-type policy table: one row per supported type, and nothing about a type anywhere
// else. Callers look a type up here for its data schema (which also canonicalises), its
// presentation form, the owner names and the zone kinds that may hold it.
import { aRule } from './a.js';
import { aaaaRule } from './aaaa.js';
import { caaRule } from './caa.js';
import { cnameRule } from './cname.js';
import { mxRule } from './mx.js';
import { nsRule } from './ns.js';
import { ptrRule } from './ptr.js';
import { RECORD_TYPES, type RecordType, type RecordTypeRule } from './rule.js';
import { srvRule } from './srv.js';
import { tlsaRule } from './tlsa.js';
import { txtRule } from './txt.js';

export { RECORD_TYPES, type RecordType, type RecordTypeRule, type ZoneKind } from './rule.js';

export const RECORD_TYPE_RULES: Record<RecordType, RecordTypeRule> = {
  A: aRule,
  AAAA: aaaaRule,
  CNAME: cnameRule,
  MX: mxRule,
  TXT: txtRule,
  SRV: srvRule,
  CAA: caaRule,
  TLSA: tlsaRule,
  NS: nsRule,
  PTR: ptrRule,
};

export function isRecordType(s: string): s is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(s);
}
