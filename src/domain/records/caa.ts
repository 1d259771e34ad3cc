// CAA (RFC 8659): which certification authorities may issue for the name.
import { z } from 'zod';
import { isCaaTag } from '../../../nameserver/wire/types/caa.js';
import { addProblem, stringField, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type CaaData = { flags: number; tag: string; value: string };

const ISSUE_LIKE_TAGS: readonly string[] = ['issue', 'issuewild', 'issuemail', 'issuevmc'];
/** Our bound on the value; real values are an issuer name and a few parameters, or one URL. */
const MAX_CAA_VALUE_LENGTH = 1024;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// RFC 8659 §4.2 ABNF: label = (ALPHA / DIGIT) *( *("-") (ALPHA / DIGIT)), also the parameter tag.
const LABEL = '[a-z0-9](?:-*[a-z0-9])*';
const ISSUER_DOMAIN = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`, 'i');
// parameter = tag *WSP "=" *WSP value; value = *(%x21-3A / %x3C-7E)
const PARAMETER = new RegExp(`^(${LABEL})[ \\t]*=[ \\t]*([\\x21-\\x3a\\x3c-\\x7e]*)$`, 'i');

/**
 * An issue-value (RFC 8659 §4.2; same syntax for issuewild, issuemail, issuevmc) in canonical form:
 * `issuer.example`, `issuer.example; key=value; key2=value2`, or `;` when no CA is authorised
 * (the RFC gives "" and ";" the same meaning; we store ";"). Null when the syntax is wrong.
 */
export function canonicalIssueValue(value: string): string | null {
  const semicolon = value.indexOf(';');
  const domain = (semicolon < 0 ? value : value.slice(0, semicolon)).trim();
  const rest = semicolon < 0 ? '' : value.slice(semicolon + 1).trim();
  if (domain && !ISSUER_DOMAIN.test(domain)) return null;
  const parameters: string[] = [];
  if (rest) {
    for (const part of rest.split(';')) {
      const m = PARAMETER.exec(part.trim());
      if (!m) return null;
      parameters.push(`${m[1]}=${m[2]}`);
    }
  }
  if (!domain && !parameters.length) return ';';
  return [domain.toLowerCase(), ...parameters].join('; ');
}

/** RFC 8659 §4.4: the iodef value is a mailto: (RFC 6068) or http(s): URL for incident reports. */
function iodefProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `The iodef value "${value}" is not a URL; give a mailto: or https: URL.`;
  }
  if (url.protocol === 'mailto:' ? !/^[^@]+@[^@]+$/.test(url.pathname) : !['http:', 'https:'].includes(url.protocol) || !url.hostname) {
    return `The iodef value "${value}" must be a mailto: URL with an address or an http(s): URL (RFC 8659 §4.4).`;
  }
  return null;
}

export const caaRule: RecordTypePolicy = {
  type: 'CAA',
  data: z
    .strictObject({
      // RFC 8659 §4.1: one octet; bit 0 (128) is Issuer Critical, the others reserved.
      flags: uintField('flags', 255),
      tag: stringField('tag').transform((value, ctx) => {
        // Matched case-insensitively (RFC 8659 §4.1), stored lower case.
        const tag = value.trim().toLowerCase();
        if (!isCaaTag(tag)) {
          addProblem(ctx, 'invalid_tag', `"tag" must be 1 to 15 letters and digits (RFC 8659 §4.1); "${value}" is not.`);
          return z.NEVER;
        }
        return tag;
      }),
      value: stringField('value').superRefine((value, ctx) => {
        if (value.length > MAX_CAA_VALUE_LENGTH) {
          addProblem(ctx, 'too_big', `"value" is ${value.length} characters long; at most ${MAX_CAA_VALUE_LENGTH} are allowed.`);
        } else if (!PRINTABLE_ASCII.test(value)) {
          addProblem(ctx, 'invalid_character', '"value" may contain only printable ASCII characters (space to "~").');
        }
      }),
    })
    // Runs only when every field is valid (a zod pipe stops at the first failing stage).
    .transform((d, ctx) => {
      if (d.tag === 'iodef') {
        const value = d.value.trim();
        const problem = iodefProblem(value);
        if (problem) {
          addProblem(ctx, 'invalid_iodef', problem, ['value']);
          return z.NEVER;
        }
        return { flags: d.flags, tag: d.tag, value };
      }
      if (!ISSUE_LIKE_TAGS.includes(d.tag)) return { flags: d.flags, tag: d.tag, value: d.value };
      const value = canonicalIssueValue(d.value);
      if (value === null) {
        addProblem(
          ctx,
          'invalid_issuer',
          `The ${d.tag} value must be empty, ";" or an issuer domain optionally followed by "; key=value" parameters (RFC 8659 §4.2), for example "letsencrypt.org" or "ca.example; account=123".`,
          ['value'],
        );
        return z.NEVER;
      }
      return { flags: d.flags, tag: d.tag, value };
    }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
