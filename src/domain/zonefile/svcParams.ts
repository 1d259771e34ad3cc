// The SvcParams of an SVCB or HTTPS record in a master file (RFC 9460 §2.1) as our `params`
// object: each `key` or `key=value`, where the value is one character-string, quoted or not. The
// tokenizer ends a word at a quote, so `alpn="h2,h3"` arrives as `alpn=` and then the quoted
// `h2,h3`. What each value means is the codec's (nameserver/wire/types/svcb.ts).
import { svcParamFromPresentation } from '../../../nameserver/wire/types/svcb.js';
import { tokenOctets, type Decoded } from './presentationText.js';
import type { Token } from './tokenize.js';

const invalid = (detail: string): { ok: false; code: string; detail: string } => ({ ok: false, code: 'invalid_rdata', detail });

export function svcParamsFromTokens(tokens: readonly Token[], what: string): Decoded<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.quoted) return invalid(`${what}: the quoted "${token.text}" is not preceded by "key=" (RFC 9460 §2.1).`);
    const eq = token.text.indexOf('=');
    const key = eq < 0 ? token.text : token.text.slice(0, eq);
    let valueText = eq < 0 ? null : token.text.slice(eq + 1);
    if (valueText === '' && tokens[i + 1]?.quoted) valueText = tokens[++i]!.text;
    let value: Buffer | null = null;
    if (valueText !== null) {
      const octets = tokenOctets(valueText);
      if (!octets.ok) return octets;
      value = Buffer.from(octets.value);
    }
    try {
      const param = svcParamFromPresentation(key, value);
      // RFC 9460 §2.2: a key appears once.
      if (Object.hasOwn(params, param.name)) return invalid(`${what}: "${param.name}" is given twice (RFC 9460 §2.2).`);
      params[param.name] = param.value;
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      return invalid(`${what}: ${e.message}.`);
    }
  }
  return { ok: true, value: params };
}
