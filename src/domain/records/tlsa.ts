// TLSA (RFC 6698, DANE): certificate association at _port._proto.name.
import { z } from 'zod';
import { addProblem, codeField, hexField, isUint } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type TlsaData = { usage: number; selector: number; matching_type: number; certificate_data: string };

/** RFC 6698 §2.1.3: SHA-256 (1) and SHA-512 (2) digests have a fixed length, in hex digits. */
const DIGEST_HEX_LENGTH: Record<number, number> = { 1: 64, 2: 128 };
/** Our bound for a full certificate or key (matching type 0): 8192 octets, 16384 hex digits. */
const MAX_TLSA_DATA_HEX = 16384;

// RFC 6698 §3: the owner is _<port>._<protocol>.<host>; protocols tcp, udp, sctp.
const PORT_LABEL = /^_([1-9][0-9]{0,4})$/;
const TLSA_PROTOCOL_LABELS = ['_tcp', '_udp', '_sctp'];

function tlsaOwnerProblem(owner: string): string | null {
  const [port, proto] = owner.split('.');
  const m = PORT_LABEL.exec(port ?? '');
  if (owner === '@' || !m || Number(m[1]) > 65535 || !proto || !TLSA_PROTOCOL_LABELS.includes(proto)) {
    return `A TLSA record's name starts with "_<port>._<protocol>", for example "_443._tcp.www" or "_25._tcp.mail" (RFC 6698 §3), with a port 1–65535 and the protocol one of ${TLSA_PROTOCOL_LABELS.join(', ')}; "${owner}" does not.`;
  }
  return null;
}

export const tlsaRule: RecordTypePolicy = {
  type: 'TLSA',
  data: z
    .strictObject({
      // RFC 6698 §2.1.1–2.1.3, names from RFC 7218.
      usage: codeField('usage', 3, '0 PKIX-TA, 1 PKIX-EE, 2 DANE-TA, 3 DANE-EE'),
      selector: codeField('selector', 1, '0 full certificate, 1 SubjectPublicKeyInfo'),
      matching_type: codeField('matching_type', 2, '0 full data, 1 SHA-256, 2 SHA-512'),
      // RFC 6698 §2.2: hex, whitespace allowed in presentation; stored without it, lower case.
      certificate_data: hexField('certificate_data', MAX_TLSA_DATA_HEX),
    })
    .superRefine((d, ctx) => {
      const expected = isUint(d.matching_type, 2) ? DIGEST_HEX_LENGTH[d.matching_type] : undefined;
      if (
        expected !== undefined &&
        typeof d.certificate_data === 'string' &&
        /^[0-9a-f]+$/.test(d.certificate_data) &&
        d.certificate_data.length !== expected
      ) {
        addProblem(
          ctx,
          'invalid_digest_length',
          `With matching_type ${d.matching_type} (${d.matching_type === 1 ? 'SHA-256' : 'SHA-512'}) "certificate_data" is exactly ${expected} hex digits; it has ${d.certificate_data.length}.`,
          ['certificate_data'],
        );
      }
    }),
  ownerProblem: tlsaOwnerProblem,
  zoneKinds: ['forward'],
};
