import { createHash } from 'node:crypto';

/**
 * The ETag of a stored row (zone or record): a function of its id and its row version, so it
 * changes exactly when the row is written, never when only publication progress moves. Strong
 * (RFC 9110 §8.8.3): equal tags mean the same stored data. The id keeps a tag of one record from
 * matching another record at the same version.
 */
export function rowEtag(id: string, version: number): string {
  return `"${createHash('sha256').update(`${id}\u0000${version}`).digest('base64url').slice(0, 27)}"`;
}

const listOf = (header: string) => header.split(',').map((s) => s.trim()).filter(Boolean);

/**
 * RFC 9110 §13.1.1: does an If-Match value (a header or an item's `if_match`) hold for the
 * current tag? Absent: yes. `*`: yes (the resource exists). Otherwise strong comparison: weak tags
 * never match.
 */
export function ifMatchSatisfied(value: string | null | undefined, current: string): boolean {
  if (!value) return true;
  if (value.trim() === '*') return true;
  return listOf(value).some((t) => !t.startsWith('W/') && t === current);
}
