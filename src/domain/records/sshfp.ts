// SSHFP (RFC 4255): the fingerprint of a host's SSH key, so a client can check it via DNSSEC.
import { z } from 'zod';
import { addProblem, hexField, isUint, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type SshfpData = { algorithm: number; fingerprint_type: number; fingerprint: string };

/** Fingerprint lengths in hex digits: 1 SHA-1 (RFC 4255 §3.1.2), 2 SHA-256 (RFC 6594 §3). */
const FINGERPRINT_HEX_LENGTH: Record<number, number> = { 1: 40, 2: 64 };

export const sshfpRule: RecordTypePolicy = {
  type: 'SSHFP',
  data: z
    .strictObject({
      // RFC 4255 §3.1.1, RFC 6594, RFC 7479, RFC 8709: 1 RSA, 2 DSA, 3 ECDSA, 4 Ed25519, 6 Ed448; 0 is reserved.
      algorithm: uintField('algorithm', 255).superRefine((algorithm, ctx) => {
        if (algorithm === 0) addProblem(ctx, 'reserved_algorithm', '"algorithm" 0 is reserved (RFC 4255 §3.1.1); 1 RSA, 2 DSA, 3 ECDSA, 4 Ed25519, 6 Ed448.');
      }),
      fingerprint_type: uintField('fingerprint_type', 255),
      fingerprint: hexField('fingerprint'),
    })
    .superRefine((d, ctx) => {
      if (!isUint(d.fingerprint_type, 255)) return;
      const expected = FINGERPRINT_HEX_LENGTH[d.fingerprint_type];
      if (expected === undefined) {
        addProblem(ctx, 'unknown_fingerprint_type', `"fingerprint_type" ${d.fingerprint_type} is not in use: 1 (SHA-1) or 2 (SHA-256) (RFC 6594 §3).`, [
          'fingerprint_type',
        ]);
      } else if (typeof d.fingerprint === 'string' && /^[0-9a-f]+$/.test(d.fingerprint) && d.fingerprint.length !== expected) {
        addProblem(
          ctx,
          'invalid_digest_length',
          `With fingerprint_type ${d.fingerprint_type} (${d.fingerprint_type === 1 ? 'SHA-1' : 'SHA-256'}) "fingerprint" is exactly ${expected} hex digits; it has ${d.fingerprint.length}.`,
          ['fingerprint'],
        );
      }
    }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};
