/**
 * The ETag of a stored row (zone or record): its id and its row version, so it changes exactly
 * when the row is written, never when only publication progress moves. Strong (RFC 9110 §8.8.3):
 * equal tags mean the same stored data. The id keeps a tag of one record from matching another
 * record at the same version. Clients treat it as opaque; nothing is hidden in it (the id is in the
 * URL, the version counts writes), so it is not hashed: a hash per tag was 1 % of a single-record
 * write's CPU (bench/RESULTS.md).
 */
export function rowEtag(id: string, version: number): string {
  return `"${id}.${version}"`;
}

const listOf = (header: string) =>
  header
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const strip = (tag: string) => tag.replace(/^W\//, '');

/** RFC 9110 §13.1.2: weak comparison for If-None-Match. */
export function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return listOf(header).some((t) => strip(t) === strip(etag));
}

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
