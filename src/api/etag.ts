// The one ETag helper: a strong validator computed from the representation a client sees, so
// GET, If-None-Match and If-Match all agree on what "unchanged" means.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonicalJson.js';
import { DomainError } from '../domain/errors.js';

export function etagOf(representation: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(representation)).digest('base64url').slice(0, 27)}"`;
}

const listOf = (header: string) => header.split(',').map((s) => s.trim()).filter(Boolean);
const strip = (tag: string) => tag.replace(/^W\//, '');

/** RFC 9110 §13.1.2: weak comparison for If-None-Match. */
export function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return listOf(header).some((t) => strip(t) === strip(etag));
}

/** RFC 9110 §13.1.1: strong comparison for If-Match; throws 412 when it fails. */
export function assertIfMatch(header: string | null, currentRepresentation: unknown): void {
  if (!header) return;
  if (header.trim() === '*') return;
  const current = etagOf(currentRepresentation);
  if (!listOf(header).some((t) => !t.startsWith('W/') && t === current)) {
    throw new DomainError('precondition_failed', {}, [
      { in: 'header', pointer: '/If-Match', code: 'etag_mismatch', detail: `The current ETag is ${current}.` },
    ]);
  }
}
