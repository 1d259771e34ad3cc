// Record type and class mnemonics a master file may contain, and how the importer treats each type
// (the type numbers and roles are the codec's one type table, nameserver/wire/rrTypes.ts).
import { DNSSEC_TYPES, typeCode, typeName } from '../../../nameserver/wire/rrTypes.js';
import { isRecordType, type RecordType } from '../records/types.js';

/**
 * The type mnemonic of a type token (case-insensitive): a registered mnemonic, or RFC 3597
 * `TYPEnnn` (mapped to its mnemonic when the number is registered, else kept as `TYPEnnn`).
 * Null when the token is no type at all.
 */
export function typeMnemonic(token: string): string | null {
  const code = typeCode(token);
  return code === null ? null : typeName(code);
}

export type TypeDisposition = { kind: 'import'; type: RecordType } | { kind: 'skip'; reason: 'soa' | 'dnssec' | 'unsupported_type' };

/** What the importer does with a type (apex NS is decided by the caller, who knows the owner). */
export function typeDisposition(mnemonic: string): TypeDisposition {
  if (isRecordType(mnemonic)) return { kind: 'import', type: mnemonic };
  if (mnemonic === 'SOA') return { kind: 'skip', reason: 'soa' };
  if (DNSSEC_TYPES.has(mnemonic)) return { kind: 'skip', reason: 'dnssec' };
  return { kind: 'skip', reason: 'unsupported_type' };
}

// RFC 1035 §3.2.4 and RFC 2136 §2.4 (NONE, ANY) classes, in BIND's spellings; RFC 3597 CLASSnnn.
const OTHER_CLASSES: ReadonlySet<string> = new Set(['CH', 'CHAOS', 'HS', 'HESIOD', 'CS', 'NONE', 'ANY']);
const GENERIC_CLASS = /^CLASS[0-9]{1,5}$/;

/** The class of a class token: 'IN' (also RFC 3597 `CLASS1`), 'other' for CH, HS, …, or null. */
export function classOf(token: string): 'IN' | 'other' | null {
  const upper = token.toUpperCase();
  if (upper === 'IN' || upper === 'CLASS1') return 'IN';
  if (OTHER_CLASSES.has(upper) || GENERIC_CLASS.test(upper)) return 'other';
  return null;
}
