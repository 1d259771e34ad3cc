// The NAPTR regexp rule (RFC 3403 §3.2, as BIND 9.18 reads it): a table of regexps, each accepted
// or refused with a located problem by the NAPTR policy, and the same table loaded by BIND's
// named-compilezone, which must accept exactly the ones we accept.
import { describe, expect, it } from 'vitest';
import { encodeRdata, presentRdata } from '../../nameserver/wire/rdata.js';
import { parseRecordData } from '../../src/domain/records/parseRecordData.js';
import { requireTool, runTool, tempFile } from '../helpers/dnsTools.js';

/** [regexp (the field's text, not its presentation), accepted, what the refusal names] */
const REGEXPS: [string, boolean, RegExp?][] = [
  ['', true],
  ['!^.*$!sip:info@example.com!', true],
  ['!^.*$!sip:info@example.com!i', true],
  ['!^.*$!x!ii', true],
  ['!^(.*)$!sip:\\1@example.com!', true],
  ['!^(.*)@(.*)$!\\2:\\1!', true],
  ['#^\\+1(.*)$#sip:\\1@e164.example#', true],
  ['!^(a)(b)(c)(d)(e)(f)(g)(h)(i)$!\\9!', true],
  ['!^(.*)$!\\2!', false, /\\2 .* 1 group\b/],
  ['!^.*$!\\1!', false, /\\1 .* 0 groups/],
  ['!^.*$!\\0!', false, /\\0/],
  ['1^.*$1x1', false, /delimiter "1"/],
  ['\\^.*$\\x\\', false, /delimiter "\\"/],
  ['i^.*$ixi', false, /delimiter "i"/],
  ['!^.*$!x', false, /does not end with a delimiter/],
  ['!^.*$!x!!', false, /more than three delimiters/],
  ['!^.*$!x!g', false, /flag "i"/],
  ['!!x!', false, /empty/],
  ['!\\!!x!', true],
  ['!(a!x!', false, /not closed/],
  ['!a)!x!', true],
  ['!()!x!', true],
  ['!(|a)!x!', false, /empty alternative|before "\|"/],
  ['!a|!x!', false, /empty alternative/],
  ['!*a!x!', false, /follows nothing/],
  ['!a**!x!', false, /another repetition/],
  ['!a{1,3}!x!', true],
  ['!a{2,1}!x!', false, /m above n/],
  ['!a{1,256}!x!', false, /above 255/],
  ['!a{1,x}!x!', false, /digits and a comma/],
  ['!(a)\\1!x!', true],
  ['!\\1(a)!x!', false, /not open/],
  ['![a-z]+!x!', true],
  ['![z-a]!x!', false, /backwards/],
  ['![]!x!', false, /not closed/],
  ['![]a]!x!', true],
  ['![[:alpha:]]+!x!', true],
  ['![[:foo:]]!x!', false, /character class/],
  ['![[.a.]-z]!x!', true],
  ['![[=a=]]!x!', true],
  ['![a-[=b=]]!x!', false, /equivalence class/],
  ['!^ü$!x!', true],
  // BIND reads octets: the delimiter is the first octet of "ü", so the field cannot end in it.
  ['ü^a$üxü', false],
];

const naptr = (regexp: string) => ({ order: 100, preference: 10, flags: 'U', services: 'E2U+sip', regexp, replacement: '.' });

describe('NAPTR regexp', () => {
  it.each(REGEXPS)('%j accepted: %s', (regexp, accepted, reason) => {
    const result = parseRecordData('NAPTR', naptr(regexp));
    if (accepted) {
      expect(result).toMatchObject({ ok: true, data: { regexp } });
      return;
    }
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ pointer: '/regexp', code: 'invalid_regexp' });
    if (reason) expect(result.errors[0]!.detail).toMatch(reason);
  });

  it('named-compilezone accepts exactly the regexps we accept', (ctx) => {
    const compile = requireTool('named-compilezone', ctx);
    // BIND's presentation of each one: the codec's, as our export writes it.
    const present = (regexp: string) => presentRdata('NAPTR', encodeRdata('NAPTR', naptr(regexp)));
    const bindAccepts = REGEXPS.map(([regexp]) => {
      const zone = `$TTL 300\n@ SOA ns.example. host.example. 1 3600 600 86400 300\n@ NS ns.example.\nenum NAPTR ${present(regexp)}\n`;
      const file = tempFile('naptr.test.zone', zone);
      try {
        const run = runTool(compile, ['-i', 'none', '-o', '/dev/null', 'naptr.test', file.file]);
        // A refusal must be of the NAPTR line (4), not of the file around it.
        return [regexp, run.status === 0 || (/:4: syntax error/.test(run.output) ? false : run.output)];
      } finally {
        file.remove();
      }
    });
    expect(bindAccepts).toEqual(REGEXPS.map(([regexp]) => [regexp, parseRecordData('NAPTR', naptr(regexp)).ok]));
    expect(new Set(bindAccepts.map(([, ok]) => ok))).toEqual(new Set([true, false]));
  });
});
