// The step after the lookup: a result kind becomes the response's rcode and AA flag. Kept apart so
// that the lookup says only what it found and this says only how DNS reports it.
import { RCODE, type Answer } from '../types.js';
import type { ZoneStore } from '../zone/store.js';
import { lookup, type LookupOptions, type LookupResult, type Question } from './lookup.js';

function toAnswer(result: LookupResult): Answer {
  const { answer, authority, additional } = result;
  switch (result.kind) {
    case 'HIT':
    case 'FOLLOW':
    case 'NODATA':
      return { rcode: RCODE.NOERROR, aa: true, answer, authority, additional };
    case 'NXDOMAIN':
      return { rcode: RCODE.NXDOMAIN, aa: true, answer, authority, additional };
    case 'DELEG':
      // RFC 1034 §4.3.2 step 3b: a referral is not authoritative. After a CNAME chain of ours the
      // answer section is, and AA speaks for the answer (RFC 1035 §4.1.1).
      return { rcode: RCODE.NOERROR, aa: answer.length > 0, answer, authority, additional, requiredAdditional: result.requiredAdditional ?? 0 };
    case 'REFUSED':
      return { rcode: RCODE.REFUSED, aa: false, answer: [], authority: [], additional: [] };
  }
}

/** The answer to one question from the zones in `store`, before any encoding. Never throws for a question. */
export function answerQuery(store: ZoneStore, question: Question, options: LookupOptions): Answer {
  return toAnswer(lookup(store, question, options));
}
