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

export const certRule: RecordTypePolicy = {
  type: 'CERT',
  data: z.strictObject({
    // A number or its mnemonic (RFC 4398 §2.2: "PGP", "PKIX", …); stored as the number.
    cert_type: z.union([z.number(), z.string()], { error: '"cert_type" must be a number or a mnemonic.' }).transform((value, ctx) => {
      const code = certTypeCode(value);
      if (code === null || RESERVED_CERT_TYPES.includes(code)) {
        addProblem(
          ctx,
          'invalid_cert_type',
          `"cert_type" is 1–65534 but not 255, or one of ${Object.entries(CERT_TYPES)
            .map(([m, n]) => `${m} (${n})`)
            .join(', ')} (RFC 4398 §2.1); ${JSON.stringify(value)} is not.`,
        );
        return z.NEVER;
      }
      return code;
    }),
    key_tag: uintField('key_tag', 65535),
    // A number or its mnemonic (RFC 4398 §2.2: "RSASHA256", … as BIND prints them); stored as the number.
    algorithm: z.union([z.number(), z.string()], { error: '"algorithm" must be a number or a mnemonic.' }).transform((value, ctx) => {
      const code = certAlgorithmCode(value);
      if (code === null) {
        addProblem(
          ctx,
          'invalid_algorithm',
          `"algorithm" is 0–255 or one of ${Object.keys(CERT_ALGORITHMS).join(', ')} (RFC 4398 §2.2); ${JSON.stringify(value)} is not.`,
        );
        return z.NEVER;
      }
      return code;
    }),
    certificate: base64Field('certificate', MAX_CERT_BASE64),
  }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
