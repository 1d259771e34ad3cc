// The `Prefer` request header (RFC 7240). Only `wait` means something here (docs/api-conventions.md
// "Waiting until live"); every other preference is ignored, as §2 allows.

/**
 * The seconds of the first `wait` preference, or null when there is none or its value is not
 * delta-seconds (RFC 7240 §4.3: 1*DIGIT). §2: preference names are case-insensitive, several
 * Prefer fields are one comma-separated list, a value may be a quoted-string, parameters follow
 * `;`, and of a preference given twice only the first counts. A server may ignore what it cannot
 * read (§2: "the server SHOULD ignore"), so a malformed one is not an error.
 */
export function preferredWaitSeconds(header: string | undefined): number | null {
  if (!header) return null;
  for (const preference of splitOutsideQuotes(header, ',')) {
    const [head = ''] = splitOutsideQuotes(preference, ';');
    const eq = head.indexOf('=');
    const name = (eq < 0 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (name !== 'wait') continue;
    if (eq < 0) return null;
    const value = unquote(head.slice(eq + 1).trim());
    if (value === null || !/^\d+$/.test(value)) return null;
    // Beyond any cap a caller applies: no need to read a hundred digits exactly.
    return value.length > 9 ? Number.MAX_SAFE_INTEGER : Number(value);
  }
  return null;
}

/** Splits at `separator` where it is not inside a quoted-string (RFC 9110 §5.6.4, with quoted-pairs). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && c === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** A token as it is, a quoted-string without its quotes and escapes; null for an unterminated one. */
function unquote(word: string): string | null {
  if (!word.startsWith('"')) return word;
  if (word.length < 2 || !word.endsWith('"')) return null;
  return word.slice(1, -1).replace(/\\(.)/g, '$1');
}
