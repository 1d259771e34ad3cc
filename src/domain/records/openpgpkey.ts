// OPENPGPKEY (RFC 7929): a user's OpenPGP public key, at <hash of the local part>._openpgpkey.<domain>.
import { z } from 'zod';
import { base64Field } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type OpenpgpkeyData = { public_key: string };

/** Our bound: 16384 base64 characters (12 KiB), room for a 4096-bit RSA key with several user IDs. */
const MAX_KEY_BASE64 = 16384;

/**
 * RFC 7929 §3 (and RFC 8162 §3 for SMIMEA): the first label is the SHA2-256 digest of the local
 * part cut to 28 octets (56 hex digits), the second the service label.
 */
export function hashedLocalPartOwnerProblem(type: string, service: string, rfc: string): (owner: string) => string | null {
  return (owner) => {
    const [hash, label] = owner.split('.');
    if (/^[0-9a-f]{56}$/i.test(hash ?? '') && label === service) return null;
    return `An ${type} record's name is "<56 hex digits>.${service}" or "<56 hex digits>.${service}.<subdomain>": the SHA2-256 digest of the mailbox's local part cut to 28 octets (${rfc} §3); "${owner}" is not.`;
  };
}

export const openpgpkeyRule: RecordTypePolicy = {
  type: 'OPENPGPKEY',
  data: z.strictObject({ public_key: base64Field('public_key', MAX_KEY_BASE64) }),
  ownerProblem: hashedLocalPartOwnerProblem('OPENPGPKEY', '_openpgpkey', 'RFC 7929'),
  zoneKinds: ['forward'],
};
