// RR type mnemonics and codes for the presentation form. Types without a mnemonic here are
// written TYPEnnn (RFC 3597 §5), which every master-file parser accepts.
import { TYPE } from '../types.js';

const CODE_OF: ReadonlyMap<string, number> = new Map(Object.entries(TYPE));
const NAME_OF: ReadonlyMap<number, string> = new Map(Object.entries(TYPE).map(([name, code]) => [code, name]));

/** "A" → 1, "TYPE65280" → 65280; null for an unknown mnemonic or a code above 65535. */
export function typeCode(mnemonic: string): number | null {
  const upper = mnemonic.toUpperCase();
  const known = CODE_OF.get(upper);
  if (known !== undefined) return known;
  const m = /^TYPE(\d{1,5})$/.exec(upper);
  if (!m) return null;
  const code = Number(m[1]);
  return code <= 0xffff ? code : null;
}

/** 1 → "A", 65280 → "TYPE65280". */
export function typeName(code: number): string {
  return NAME_OF.get(code) ?? `TYPE${code}`;
}
