// The record-type policy table: one row per type the API may write — the only list of them:
// adding a type is its codec (a row of nameserver/wire/types/index.ts) and its row here, each
// defined in a module of its own, and nothing else. Callers look a type up here
// for its data schema (business rules; it also canonicalises), its presentation form (the
// codec's, made from the wire form: exactly what is served), the owner names and the zone kinds
// that may hold it. The wire format of each type is the codec's (nameserver/wire/types/).
import { presentData } from '../../../nameserver/wire/rdata.js';
import { isOpaqueType } from '../../../nameserver/wire/rrTypes.js';
import { aRule } from './a.js';
import { aaaaRule } from './aaaa.js';
import { caaRule } from './caa.js';
import { cnameRule } from './cname.js';
import { dsRule } from './ds.js';
import { mxRule } from './mx.js';
import { nsRule } from './ns.js';
import { ptrRule } from './ptr.js';
import { certRule } from './cert.js';
import { hinfoRule } from './hinfo.js';
import { locRule } from './loc.js';
import { naptrRule } from './naptr.js';
import { opaqueRule } from './opaque.js';
import { openpgpkeyRule } from './openpgpkey.js';
import { rpRule } from './rp.js';
import { smimeaRule } from './smimea.js';
import { sshfpRule } from './sshfp.js';
import { uriRule } from './uri.js';
import type { RecordType, RecordTypePolicy, RecordTypeRule } from './rule.js';
import { srvRule } from './srv.js';
import { httpsRule, svcbRule } from './svcb.js';
import { tlsaRule } from './tlsa.js';
import { txtRule } from './txt.js';

export type { RecordType, RecordTypePolicy, RecordTypeRule, ZoneKind } from './rule.js';

const POLICIES: readonly RecordTypePolicy[] = [
  aRule,
  aaaaRule,
  cnameRule,
  mxRule,
  txtRule,
  srvRule,
  caaRule,
  tlsaRule,
  nsRule,
  dsRule,
  ptrRule,
  svcbRule,
  httpsRule,
  sshfpRule,
  uriRule,
  hinfoRule,
  rpRule,
  openpgpkeyRule,
  smimeaRule,
  naptrRule,
  certRule,
  locRule,
];

const withPresentation = (policy: RecordTypePolicy): RecordTypeRule => ({
  ...policy,
  presentation: (data: Record<string, unknown>) => presentData(policy.type, data),
});

/** The types the API writes by name, in table order (docs/records.md). */
export const RECORD_TYPES: readonly RecordType[] = POLICIES.map((p) => p.type);

export const RECORD_TYPE_RULES: Readonly<Record<string, RecordTypeRule>> = Object.fromEntries(POLICIES.map((p) => [p.type, withPresentation(p)]));

/** The row of a type: its own, or the RFC 3597 opaque one for `TYPEnnn`. */
export function ruleOf(type: RecordType): RecordTypeRule {
  return RECORD_TYPE_RULES[type] ?? withPresentation(opaqueRule(type));
}

export function isRecordType(s: string): s is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(s) || isOpaqueType(s);
}

/**
 * Why a type the API does not write is refused (`unsupported_type`). DNAME has a reason of its
 * own: a DNAME is only right when the server also synthesises the CNAME of each answer below it
 * (RFC 6672 §3.3); ours does not, and serving DNAME data without the synthesis would break
 * resolvers that do not understand DNAME.
 */
export function unsupportedTypeDetail(type: string): string {
  if (type === 'DNAME') {
    return 'DNAME is not supported: the nameserver does not synthesise the CNAMEs that RFC 6672 §3.3 requires of a server holding a DNAME. Write a CNAME for each name to redirect, or delegate the subtree (NS).';
  }
  return `Supported types: ${RECORD_TYPES.join(', ')}.`;
}
