// SMIMEA (RFC 8162): TLSA's fields (usage, selector, matching type, data; the same rules) for a
// mailbox's S/MIME certificate, at <hash of the local part>._smimecert.<domain>.
import { hashedLocalPartOwnerProblem } from './openpgpkey.js';
import type { RecordTypePolicy } from './rule.js';
import { tlsaRule } from './tlsa.js';

export const smimeaRule: RecordTypePolicy = {
  type: 'SMIMEA',
  data: tlsaRule.data,
  ownerProblem: hashedLocalPartOwnerProblem('SMIMEA', '_smimecert', 'RFC 8162'),
  zoneKinds: ['forward'],
};
