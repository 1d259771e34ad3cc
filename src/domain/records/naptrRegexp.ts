// The NAPTR regexp field (RFC 3403 §3.2): delim-char ERE delim-char replacement delim-char [flags].
// We accept exactly what BIND accepts, so a record the API stores loads in BIND and a zone file
// BIND serves imports here: this is BIND 9.18's txt_valid_regex (lib/dns/rdata/generic/naptr_35.c)
// and isc_regex_validate (lib/isc/regex.c), read over the field's UTF-8 octets as BIND reads them.

const BACKSLASH = 0x5c;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const ch = (s: string) => s.charCodeAt(0);

/** Why `regexp` is no valid NAPTR regexp, or null when it is one (the empty field is one). */
export function naptrRegexpProblem(regexp: string): string | null {
  const octets = Buffer.from(regexp, 'utf8');
  if (octets.length === 0) return null;
  const delim = octets[0]!;
  // Digits and backslash would read as backreferences or escapes, "i" as the flag.
  if (isDigit(delim) || delim === BACKSLASH || delim === ch('i') || delim === 0) {
    return `the delimiter "${String.fromCharCode(delim)}" is a digit, a backslash or "i"; use a character such as "!".`;
  }
  const ere: number[] = [];
  let inReplacement = false;
  let inFlags = false;
  let highestBackreference = 0;
  for (let i = 1; i < octets.length; i++) {
    let c = octets[i]!;
    if (c === delim) {
      if (!inReplacement) inReplacement = true;
      else if (!inFlags) inFlags = true;
      else return 'it has more than three delimiters (delimiter, regular expression, delimiter, replacement, delimiter, optional flag "i").';
      continue;
    }
    if (inFlags) {
      if (c !== ch('i')) return `after the last delimiter only the flag "i" may follow, not "${String.fromCharCode(c)}".`;
      continue;
    }
    if (!inReplacement) ere.push(c);
    if (c === BACKSLASH) {
      if (++i >= octets.length) return 'it ends in a lone backslash.';
      c = octets[i]!;
      if (inReplacement) {
        if (c === ch('0')) return 'the replacement holds "\\0"; backreferences are \\1 to \\9.';
        if (isDigit(c)) highestBackreference = Math.max(highestBackreference, c - ch('0'));
      } else ere.push(c);
    }
  }
  if (!inFlags)
    return 'it does not end with a delimiter: the form is delimiter, regular expression, delimiter, replacement, delimiter, optional flag "i" (RFC 3403 §3.2).';
  const ereProblem = extendedRegexProblem(ere);
  if (typeof ereProblem === 'string') return `its regular expression is not a POSIX extended regular expression: ${ereProblem}.`;
  if (highestBackreference > ereProblem) {
    return `the replacement refers to \\${highestBackreference} but the regular expression has ${ereProblem} group${ereProblem === 1 ? '' : 's'}.`;
  }
  return null;
}

const CHARACTER_CLASSES = new Set([
  ':alnum:',
  ':digit:',
  ':punct:',
  ':alpha:',
  ':graph:',
  ':space:',
  ':blank:',
  ':lower:',
  ':upper:',
  ':cntrl:',
  ':print:',
  ':xdigit:',
]);

/**
 * BIND's isc_regex_validate: the number of groups of a POSIX ERE (C locale), or why it is not one.
 * A state machine over octets, kept step for step with BIND's so that both give one verdict.
 */
function extendedRegexProblem(re: readonly number[]): number | string {
  if (re.length === 0) return 'it is empty';
  type State = 'none' | 'bracket' | 'bound' | 'collating' | 'equivalence' | 'class';
  let state: State = 'none';
  let seenComma = false;
  let seenHigh = false;
  let seenChar = false;
  let seenEc = false;
  let seenCe = false;
  let haveAtom = false;
  let group = 0;
  let range = 0;
  let sub = 0;
  let emptyOk = false;
  let neg = false;
  let wasMultiple = false;
  let low = 0;
  let high = 0;
  let classStart = 0;
  let rangeStart = 0;
  // C's *c at the end of the string is NUL.
  const at = (i: number) => (i < re.length ? re[i]! : 0);
  const signed = (c: number) => (c > 127 ? c - 256 : c);
  let i = 0;
  while (i < re.length) {
    const c = re[i]!;
    switch (state) {
      case 'none': {
        const literal = () => {
          haveAtom = true;
          wasMultiple = false;
          i++;
        };
        if (c === BACKSLASH) {
          i++;
          const e = at(i);
          if (e >= ch('1') && e <= ch('9')) {
            if (e - ch('0') > sub) return `"\\${e - ch('0')}" refers to a group that is not open before it`;
            haveAtom = true;
            wasMultiple = false;
            i++;
          } else if (e === 0) return 'it ends in a lone backslash';
          else literal();
        } else if (c === ch('[')) {
          i++;
          neg = false;
          wasMultiple = false;
          seenChar = false;
          state = 'bracket';
        } else if (c === ch('{')) {
          if (!isDigit(at(i + 1))) literal();
          else {
            if (!haveAtom) return 'a bound "{…}" follows nothing';
            if (wasMultiple) return 'a bound "{…}" follows another repetition';
            seenComma = false;
            seenHigh = false;
            low = high = 0;
            state = 'bound';
            i++;
            haveAtom = true;
            wasMultiple = true;
          }
        } else if (c === ch('(')) {
          haveAtom = false;
          wasMultiple = false;
          emptyOk = true;
          group++;
          sub++;
          i++;
        } else if (c === ch(')')) {
          if (group && !haveAtom && !emptyOk) return 'an alternative before ")" is empty';
          haveAtom = true;
          wasMultiple = false;
          if (group !== 0) group--;
          i++;
        } else if (c === ch('|')) {
          if (!haveAtom) return 'an alternative before "|" is empty';
          haveAtom = false;
          emptyOk = false;
          wasMultiple = false;
          i++;
        } else if (c === ch('^') || c === ch('$')) {
          haveAtom = true;
          wasMultiple = true;
          i++;
        } else if (c === ch('+') || c === ch('*') || c === ch('?')) {
          if (wasMultiple) return `"${String.fromCharCode(c)}" follows another repetition or an anchor`;
          if (!haveAtom) return `"${String.fromCharCode(c)}" follows nothing`;
          haveAtom = true;
          wasMultiple = true;
          i++;
        } else literal();
        break;
      }
      case 'bound':
        if (isDigit(c)) {
          if (!seenComma) {
            low = low * 10 + c - ch('0');
            if (low > 255) return 'a bound is above 255';
          } else {
            seenHigh = true;
            high = high * 10 + c - ch('0');
            if (high > 255) return 'a bound is above 255';
          }
          i++;
        } else if (c === ch(',')) {
          if (seenComma) return 'a bound has two commas';
          seenComma = true;
          i++;
        } else if (c === ch('}')) {
          if (seenHigh && low > high) return 'a bound "{m,n}" has m above n';
          seenComma = false;
          state = 'none';
          i++;
        } else return 'a bound "{…}" holds something other than digits and a comma';
        break;
      case 'bracket': {
        const inside = (): string | null => {
          seenChar = true;
          if (range === 2 && c < rangeStart) return 'a range in "[…]" runs backwards';
          if (range !== 0) range--;
          rangeStart = c;
          i++;
          return null;
        };
        let problem: string | null = null;
        if (c === ch('^')) {
          if (seenChar || neg) problem = inside();
          else {
            neg = true;
            i++;
          }
        } else if (c === ch('-')) {
          if (range === 2 || !seenChar) problem = inside();
          else if (range === 1) return 'a range in "[…]" has no start';
          else {
            range = 2;
            i++;
          }
        } else if (c === ch('[')) {
          i++;
          const n = at(i);
          if (n === ch('.')) {
            if (range !== 0) range--;
            i++;
            state = 'collating';
            seenCe = false;
          } else if (n === ch('=')) {
            if (range === 2) return 'an equivalence class "[=…=]" ends a range';
            i++;
            state = 'equivalence';
            seenEc = false;
          } else if (n === ch(':')) {
            if (range === 2) return 'a character class "[:…:]" ends a range';
            classStart = i;
            i++;
            state = 'class';
          }
          seenChar = true;
        } else if (c === ch(']')) {
          if (at(i + 1) === 0 && !seenChar) return 'a bracket expression "[…]" is not closed';
          if (!seenChar) problem = inside();
          else {
            i++;
            range = 0;
            haveAtom = true;
            state = 'none';
          }
        } else problem = inside();
        if (problem) return problem;
        break;
      }
      case 'collating':
        if (c === ch('.')) {
          i++;
          if (at(i) === ch(']')) {
            if (!seenCe) return 'a collating element "[.….]" is empty';
            i++;
            state = 'bracket';
          } else {
            rangeStart = seenCe ? 256 : ch('.');
            seenCe = true;
          }
        } else {
          rangeStart = seenCe ? 256 : signed(c);
          seenCe = true;
          i++;
        }
        break;
      case 'equivalence':
        if (c === ch('=')) {
          i++;
          if (at(i) === ch(']')) {
            if (!seenEc) return 'an equivalence class "[=…=]" is empty';
            i++;
            state = 'bracket';
          } else seenEc = true;
        } else {
          seenEc = true;
          i++;
        }
        break;
      case 'class':
        i++;
        if (c === ch(':') && at(i) === ch(']')) {
          const name = String.fromCharCode(...re.slice(classStart, i));
          if (!CHARACTER_CLASSES.has(name)) return `"[${name}]" is no character class of the C locale`;
          i++;
          state = 'bracket';
        }
        break;
    }
  }
  if (group !== 0) return 'a group "(" is not closed';
  if (state !== 'none') return 'it ends inside a bracket expression or bound';
  if (!haveAtom) return 'it ends with an empty alternative';
  return sub;
}
