// RFC 1035 §5.1 master-file lexing: the text becomes logical records (one per line, or several
// lines joined by parentheses), each a list of tokens. Escapes stay in the token text; they are
// decoded where the meaning of the token is known (a name, a character-string, a number).

/** One token: a word, or the inside of a quoted string (escapes not yet decoded). */
export interface Token {
  text: string;
  quoted: boolean;
  /** 1-based line where the token starts. */
  line: number;
}

export interface LexError {
  line: number;
  code: 'unterminated_quote' | 'unbalanced_parentheses' | 'invalid_escape';
  detail: string;
}

/** One logical record (an entry or a directive) of the master file. */
export interface LogicalRecord {
  /** 1-based line of the first token (of the first line when there is no token). */
  line: number;
  /** RFC 1035 §5.1: a line starting with blank space has no owner; the previous one applies. */
  blankOwner: boolean;
  tokens: Token[];
  /** Lexical problems; a record with any is not interpreted further. */
  errors: LexError[];
}

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const SEMICOLON = 0x3b;
const OPEN = 0x28;
const CLOSE = 0x29;
const BACKSLASH = 0x5c;

// Blank space between tokens. RFC 1035 names space and tab; a CR (of a CRLF line end), form feed
// and vertical tab are treated the same so that files edited on other systems read alike.
const isBlank = (c: number) => c === SPACE || c === TAB || c === CR || c === 0x0c || c === 0x0b;

/** True when a backslash at `i` has nothing to escape: end of text or end of line (CRLF too). */
function escapesLineEnd(text: string, i: number): boolean {
  const next = text.charCodeAt(i + 1);
  return Number.isNaN(next) || next === LF || (next === CR && (i + 2 >= text.length || text.charCodeAt(i + 2) === LF));
}

/**
 * Splits a master file into logical records, handing each to `onRecord` as soon as it ends (so a
 * large file is never held as tokens all at once). Total: never throws, every problem is a
 * LexError on the record it belongs to. A UTF-8 byte order mark at the start is ignored.
 */
export function forEachLogicalRecord(text: string, onRecord: (record: LogicalRecord) => void): void {
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let depth = 0; // parenthesis nesting: inside, line ends do not end the record (RFC 1035 §5.1)
  let parenLine = 0; // line of the outermost open parenthesis
  let record: LogicalRecord | null = null;
  let lineStart = true;

  const finish = () => {
    if (record && (record.tokens.length > 0 || record.errors.length > 0)) onRecord(record);
    record = null;
  };
  const push = (token: Token) => {
    const r = record!;
    if (r.tokens.length === 0) r.line = token.line;
    r.tokens.push(token);
  };

  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      line++;
      i++;
      if (depth === 0) finish();
      lineStart = true;
      continue;
    }
    if (lineStart) {
      lineStart = false;
      if (depth === 0 || record === null) record = { line, blankOwner: isBlank(c), tokens: [], errors: [] };
    }
    const r: LogicalRecord = record!;
    if (isBlank(c)) {
      i++;
    } else if (c === SEMICOLON) {
      // A comment runs to the end of the line, also inside parentheses.
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
    } else if (c === OPEN) {
      if (depth === 0) parenLine = line;
      depth++;
      i++;
    } else if (c === CLOSE) {
      if (depth === 0) {
        r.errors.push({ line, code: 'unbalanced_parentheses', detail: '")" without a matching "(".' });
      } else {
        depth--;
      }
      i++;
    } else if (c === QUOTE) {
      // A quoted <character-string>: ends at the next unescaped quote on the same line.
      const start = i + 1;
      let j = start;
      let closed = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === QUOTE) {
          closed = true;
          break;
        }
        if (d === LF) break;
        if (d === BACKSLASH) {
          if (escapesLineEnd(text, j)) {
            j++;
            break;
          }
          j += 2;
          continue;
        }
        j++;
      }
      if (closed) {
        push({ text: text.slice(start, j), quoted: true, line });
        i = j + 1;
      } else {
        r.errors.push({ line, code: 'unterminated_quote', detail: 'A quoted string is not closed on the line where it starts.' });
        i = j;
      }
    } else {
      // A word: up to blank space, a line end, a comment, a parenthesis or a quote.
      const start = i;
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (isBlank(d) || d === LF || d === SEMICOLON || d === OPEN || d === CLOSE || d === QUOTE) break;
        if (d === BACKSLASH) {
          if (escapesLineEnd(text, j)) {
            r.errors.push({ line, code: 'invalid_escape', detail: 'A backslash at the end of a line escapes nothing.' });
            j++;
            break;
          }
          j += 2;
          continue;
        }
        j++;
      }
      push({ text: text.slice(start, j), quoted: false, line });
      i = j;
    }
  }
  if (depth > 0 && record) {
    (record as LogicalRecord).errors.push({ line: parenLine, code: 'unbalanced_parentheses', detail: 'The "(" opened here is never closed.' });
  }
  finish();
}
