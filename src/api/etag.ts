// ETags of representations: a strong validator computed from what a client sees, for resources
// without a row version (change sets, tenants, templates, exports), so GET, If-None-Match and
// If-Match agree on what "unchanged" means. Zones and records use rowEtag (src/domain/model/etag.ts):
// their tag follows the stored row, not the publication progress their body also shows. The
// If-Match and If-None-Match comparisons, for both kinds of tag, are in src/domain/model/etag.ts.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonicalJson.js';
import { DomainError } from '../domain/errors.js';
import { ifMatchSatisfied } from '../domain/model/etag.js';

export function etagOf(representation: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(representation)).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.1: strong comparison for If-Match; throws 412 when it fails. */
export function assertIfMatch(header: string | null, currentRepresentation: unknown): void {
  const current = etagOf(currentRepresentation);
  if (!ifMatchSatisfied(header, current)) {
    throw new DomainError('precondition_failed', {}, [
      { in: 'header', pointer: '/If-Match', code: 'etag_mismatch', detail: `The current ETag is ${current}.` },
    ]);
  }
}
