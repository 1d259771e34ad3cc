// CERT (RFC 4398): a certificate or CRL (X.509, SPKI, OpenPGP, or a URL to one) stored in DNS.
import { z } from 'zod';
import { CERT_ALGORITHMS, CERT_TYPES, certAlgorithmCode, certTypeCode } from '../../../nameserver/wire/types/cert.js';
import { addProblem, base64Field, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type CertData = { cert_type: number; key_tag: number; algorithm: number; certificate: string };

/** Our bound: 16384 base64 characters (12 KiB), a certificate with a long chain of extensions. */
const MAX_CERT_BASE64 = 16384;
/** RFC 4398 §2.1: 0, 255 and 65535 are reserved. */
const RESERVED_CERT_TYPES: readonly number[] = [0, 255, 65535];

/** A field given as a number or a mnemonic, stored as the number `code` makes of it (null: refused as `problem`). */
function mnemonicField(field: string, problem: string, code: (value: unknown) => number | null, expected: string) {
  return z.union([z.number(), z.string()], { error: `"${field}" must be a number or a mnemonic.` }).transform((value, ctx) => {
    const number = code(value);
    if (number !== null) return number;
    addProblem(ctx, problem, `"${field}" is ${expected}; ${JSON.stringify(value)} is not.`);
    return z.NEVER;
  });
}

export const certRule: RecordTypePolicy = {
  type: 'CERT',
  data: z.strictObject({
    // Numbers or their mnemonics (RFC 4398 §2.1, §2.2: "PGP", "RSASHA256", … as BIND prints them); stored as numbers.
    cert_type: mnemonicField(
      'cert_type',
      'invalid_cert_type',
      (value) => {
        const code = certTypeCode(value);
        return code === null || RESERVED_CERT_TYPES.includes(code) ? null : code;
      },
      `1–65534 but not 255, or one of ${Object.entries(CERT_TYPES)
        .map(([m, n]) => `${m} (${n})`)
        .join(', ')} (RFC 4398 §2.1)`,
    ),
    key_tag: uintField('key_tag', 65535),
    algorithm: mnemonicField('algorithm', 'invalid_algorithm', certAlgorithmCode, `0–255 or one of ${Object.keys(CERT_ALGORITHMS).join(', ')} (RFC 4398 §2.2)`),
    certificate: base64Field('certificate', MAX_CERT_BASE64),
  }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
