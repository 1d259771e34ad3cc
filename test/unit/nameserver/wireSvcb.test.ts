// SVCB and HTTPS (RFC 9460) through the one codec: the test vectors of RFC 9460 Appendix D
// (presentation ⇄ wire), presentation as BIND 9 prints it (alpn quoted with its two levels of
// escapes, opaque values quoted, keys ascending, empty values as bare keys), keyNNNNN for
// registered keys read as their wire form, the failure cases of Appendix D.3, and the policy's
// located problems (RFC 9460 §2.4.2, §7.1.1, §8; RFC 9461 §5).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRdata, presentRdata, rdataToData } from '../../../nameserver/wire/rdata.js';
import { decodeRdata } from '../../../nameserver/wire/rdataPresentation.js';
import { TYPE } from '../../../nameserver/wire/rrTypes.js';
import { escapedOctets } from '../../../nameserver/wire/types/svcb.js';
import { parseRecordData } from '../../../src/domain/records/parseRecordData.js';
import { ruleOf } from '../../../src/domain/records/types.js';
import { rdataFromPresentation, rdataFromText } from '../../../src/domain/zonefile/rdataFromPresentation.js';
import { forEachLogicalRecord, type Token } from '../../../src/domain/zonefile/tokenize.js';
import { requireTool, runTool, tempFile } from '../../helpers/dnsTools.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** RDATA tokens of one record's text, read as a master file would be, origin example.com. */
function fromZoneText(type: 'SVCB' | 'HTTPS', text: string) {
  let tokens: readonly Token[] = [];
  forEachLogicalRecord(text, (r) => {
    expect(r.errors).toEqual([]);
    tokens = r.tokens;
  });
  return rdataFromPresentation(type, tokens, 'example.com');
}

/** The import path: presentation → data → the policy; the stored data or the problems. */
function imported(type: 'SVCB' | 'HTTPS', text: string) {
  const data = fromZoneText(type, text);
  if (!data.ok) return { ok: false as const, problem: data.code, detail: data.detail };
  const parsed = parseRecordData(type, data.value);
  return parsed.ok ? { ok: true as const, data: parsed.data } : { ok: false as const, problem: parsed.errors[0]!.code, errors: parsed.errors };
}

const FOO_COM = '03 666f6f 07 6578616d706c65 03 636f6d 00';
const FOO_ORG = '03 666f6f 07 6578616d706c65 03 6f7267 00';

// RFC 9460 Appendix D.1 and D.2: [type, presentation as the RFC writes it, wire, as BIND prints it].
const VECTORS: [type: 'SVCB' | 'HTTPS', input: string, wire: string, printed: string][] = [
  ['HTTPS', '0 foo.example.com.', `0000 ${FOO_COM}`, '0 foo.example.com.'], // Figure 1: AliasMode
  ['SVCB', '1 .', '0001 00', '1 .'], // Figure 2: TargetName "."
  ['SVCB', '16 foo.example.com. port=53', `0010 ${FOO_COM} 0003 0002 0035`, '16 foo.example.com. port=53'], // Figure 3
  ['SVCB', '1 foo.example.com. key667=hello', `0001 ${FOO_COM} 029b 0005 68656c6c6f`, '1 foo.example.com. key667="hello"'], // Figure 4
  // Figure 5: a decimal escape in a quoted value
  ['SVCB', '1 foo.example.com. key667="hello\\210qoo"', `0001 ${FOO_COM} 029b 0009 68656c6c6fd2716f6f`, '1 foo.example.com. key667="hello\\210qoo"'],
  // Figure 6: two IPv6 hints, quoted
  [
    'SVCB',
    '1 foo.example.com. ( ipv6hint="2001:db8::1,2001:db8::53:1" )',
    `0001 ${FOO_COM} 0006 0020 20010db8000000000000000000000001 20010db8000000000000000000530001`,
    '1 foo.example.com. ipv6hint=2001:db8::1,2001:db8::53:1',
  ],
  // Figure 7: an IPv6 hint written with an embedded IPv4 address (RFC 5952 prints it in hex)
  [
    'SVCB',
    '1 example.com. ( ipv6hint="2001:db8:122:344::192.0.2.33" )',
    '0001 07 6578616d706c65 03 636f6d 00 0006 0010 20010db8012203440000 0000c0000221',
    '1 example.com. ipv6hint=2001:db8:122:344::c000:221',
  ],
  // Figure 8: keys given out of order, mandatory's list out of order; wire and output ascending
  [
    'SVCB',
    '16 foo.example.org. ( alpn=h2,h3-19 mandatory=ipv4hint,alpn ipv4hint=192.0.2.1 )',
    `0010 ${FOO_ORG} 0000 0004 0001 0004 0001 0009 02 6832 05 68332d3139 0004 0004 c0000201`,
    '16 foo.example.org. mandatory=alpn,ipv4hint alpn="h2,h3-19" ipv4hint=192.0.2.1',
  ],
  // Figure 9: an ALPN id holding "\" and "," — both spellings the RFC gives
  [
    'SVCB',
    '16 foo.example.org. alpn="f\\\\\\\\oo\\\\,bar,h2"',
    `0010 ${FOO_ORG} 0001 000c 08 665c6f6f2c626172 02 6832`,
    '16 foo.example.org. alpn="f\\\\\\\\oo\\\\,bar,h2"',
  ],
  [
    'SVCB',
    '16 foo.example.org. alpn=f\\\\\\092oo\\092,bar,h2',
    `0010 ${FOO_ORG} 0001 000c 08 665c6f6f2c626172 02 6832`,
    '16 foo.example.org. alpn="f\\\\\\\\oo\\\\,bar,h2"',
  ],
];

describe('RFC 9460 Appendix D test vectors', () => {
  it.each(VECTORS)('%s %s', (type, input, wire, printed) => {
    const encoded = rdataFromText(type, input);
    expect(encoded.ok && encoded.value.toString('hex')).toBe(hex(wire).toString('hex'));
    expect(presentRdata(type, hex(wire))).toBe(printed);
    expect(decodeRdata(TYPE[type], hex(wire))).toBe(printed);
    // data ⇄ wire is the identity, and the printed form reads back to the same wire.
    const data = rdataToData(type, hex(wire))!;
    expect(encodeRdata(type, data).equals(hex(wire))).toBe(true);
    const again = rdataFromText(type, printed);
    expect(again.ok && again.value.equals(hex(wire))).toBe(true);
  });

  it('the data of Figure 8 is structured JSON, keys by name', () => {
    expect(rdataToData('SVCB', hex(VECTORS[7]![2]))).toEqual({
      priority: 16,
      target: 'foo.example.org',
      params: { mandatory: ['alpn', 'ipv4hint'], alpn: ['h2', 'h3-19'], ipv4hint: ['192.0.2.1'] },
    });
  });

  // Appendix D.3: each is not a valid record.
  it.each([
    ['1 foo.example.com. ( key123=abc key123=def )', 'invalid_rdata'], // the same key twice
    ['1 foo.example.com. mandatory', 'invalid_rdata'], // values that must not be empty
    ['1 foo.example.com. alpn', 'invalid_rdata'],
    ['1 foo.example.com. port', 'invalid_rdata'],
    ['1 foo.example.com. ipv4hint', 'invalid_rdata'],
    ['1 foo.example.com. ipv6hint', 'invalid_rdata'],
    ['1 foo.example.com. no-default-alpn=abc', 'invalid_rdata'], // takes no value
    ['1 foo.example.com. mandatory=key123', 'mandatory_key_missing'], // a mandatory key not present
    ['1 foo.example.com. mandatory=mandatory', 'mandatory_lists_itself'],
    ['1 foo.example.com. ( ipv6hint=1.2.3.4 )', 'invalid_rdata'], // an IPv4 address as an IPv6 hint
  ])('D.3: %s is refused (%s)', (input, code) => {
    const result = imported('SVCB', input);
    expect(result.ok).toBe(false);
    expect(result.problem).toBe(code);
  });
});

describe('presentation: escapes and keys as BIND prints them', () => {
  it.each([
    // ALPN ids: space and octets outside printable ASCII as \DDD, `"` as \", "," and "\" escaped twice
    ['1 . alpn="a b,c\\"d,e;f,\\195\\169"', '1 . alpn="a\\032b,c\\"d,e;f,\\195\\169"'],
    ['1 . alpn=a\\\\,b', '1 . alpn="a\\\\,b"'], // one id "a,b"
    ['1 . alpn=a\\,b', '1 . alpn="a,b"'], // two ids: "\," is a comma at the character-string level
    // opaque values quoted, escapes kept; an empty value is the bare key
    ['1 . key9="a b,c\\"d;e \\195\\169 \\\\ \\,"', '1 . key9="a b,c\\"d;e \\195\\169 \\\\ ,"'],
    ['1 . key65001 key65002=""', '1 . key65001 key65002'],
    // keyNNNNN of a registered key is its wire form; printed by name
    ['1 . key3=\\000\\005', '1 . port=5'],
    ['1 . key0=\\000\\001 key1=\\002h2', '1 . mandatory=alpn alpn="h2"'],
    ['1 . port=0443', '1 . port=443'],
    ['1 . mandatory=key65000,ech key65000 ech=AAAA', '1 . mandatory=ech,key65000 ech=AAAA key65000'],
    ['1 . alpn=h2 no-default-alpn=""', '1 . alpn="h2" no-default-alpn'],
    ['1 . ipv6hint=::ffff:192.0.2.1,::1', '1 . ipv6hint=::ffff:192.0.2.1,::1'],
    // dohpath (RFC 9461) and ohttp (RFC 9540) read by name, printed as BIND 9.18 and Knot 3.2 read them
    ['1 . alpn=h2 dohpath=/dns-query{?dns} ohttp', '1 . alpn="h2" key7="/dns-query{?dns}" key8'],
    ['1 . mandatory=dohpath,alpn alpn=h2 key7="/q{?dns}" key8', '1 . mandatory=alpn,key7 alpn="h2" key7="/q{?dns}" key8'],
    ['65535 foo port=2', '65535 foo.example.com. port=2'],
    ['0 @', '0 example.com.'],
  ])('%s prints as %s', (input, printed) => {
    const result = imported('SVCB', input);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const data = result.ok ? result.data : {};
    expect(ruleOf('SVCB').presentation(data)).toBe(printed);
    // printed → data gives the same data again
    const again = imported('SVCB', printed);
    expect(again.ok && again.data).toEqual(data);
  });

  it.each([
    ['1 . ALPN=h2', /not a SvcParamKey/], // key names are lower case
    ['1 . key01=h2', /not a SvcParamKey/], // no leading zeros
    ['1 . key65535', /reserved/],
    ['1 . key65536=x', /not a SvcParamKey/],
    ['1 . key1=h2', /not the wire form of alpn/],
    ['1 . "alpn=h2"', /not preceded by "key="/],
    ['1 . alpn=h2,,h3', /empty ALPN id/],
    ['1 . alpn=""', /needs a list/],
    ['1 . port=65536', /0–65535/],
    ['1 . port=1 port=2', /twice/],
    ['1 . alpn=h2 key1=\\002h3', /twice/],
    ['1 . ipv4hint=1.2.3.4,', /IPv4/],
    ['1 . ech=AAA', /base64/],
    ['1 . mandatory=port,port port=1', /twice/],
  ])('%s is refused', (input, detail) => {
    const result = fromZoneText('SVCB', input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.detail).toMatch(detail);
  });

  it('an empty ech reads (BIND writes it as the bare key) but the policy refuses it', () => {
    const wire = rdataFromText('SVCB', '1 . ech=""');
    expect(wire.ok && presentRdata('SVCB', wire.value)).toBe('1 . ech');
    expect(imported('SVCB', '1 . ech')).toMatchObject({ ok: false, problem: 'invalid_svc_param' });
  });

  it('keys on the wire out of order, twice, or 65535 are malformed', () => {
    expect(rdataToData('SVCB', hex('0001 00 0003 0002 0035 0001 0003 026832'))).toBeNull();
    expect(rdataToData('SVCB', hex('0001 00 0003 0002 0035 0003 0002 0036'))).toBeNull();
    expect(rdataToData('SVCB', hex('0001 00 ffff 0000'))).toBeNull();
    expect(decodeRdata(TYPE.SVCB, hex('0001 00 ffff 0000'))).toBe('\\# 7 000100FFFF0000');
  });
});

describe('the API data: one stored form, each problem at its param', () => {
  const ok = (data: unknown) => {
    const r = parseRecordData('HTTPS', data);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    return r.ok ? r.data : null;
  };
  const problems = (data: unknown) => {
    const r = parseRecordData('HTTPS', data);
    expect(r.ok).toBe(false);
    return r.ok ? [] : r.errors.map((e) => [e.pointer, e.code]);
  };

  it('stores params in key order, values canonical; the presentation is the served form', () => {
    const data = ok({
      priority: 1,
      target: 'Svc.Example.NET.',
      params: {
        port: 443,
        ipv6hint: ['2001:DB8:0:0:0:0:0:1'],
        alpn: ['h3', 'h2'],
        mandatory: ['port', 'alpn'],
        'no-default-alpn': true,
        ech: 'AEX+DQ==',
        key65000: 'hi\\001',
      },
    });
    expect(data).toEqual({
      priority: 1,
      target: 'svc.example.net',
      params: {
        mandatory: ['alpn', 'port'],
        alpn: ['h3', 'h2'],
        'no-default-alpn': true,
        port: 443,
        ech: 'AEX+DQ==',
        ipv6hint: ['2001:db8::1'],
        key65000: 'hi\\001',
      },
    });
    expect(Object.keys(data!.params as object)).toEqual(['mandatory', 'alpn', 'no-default-alpn', 'port', 'ech', 'ipv6hint', 'key65000']);
    expect(ruleOf('HTTPS').presentation(data!)).toBe(
      '1 svc.example.net. mandatory=alpn,port alpn="h3,h2" no-default-alpn port=443 ech=AEX+DQ== ipv6hint=2001:db8::1 key65000="hi\\001"',
    );
    expect(ok({ priority: 0, target: 'svc.example.net' })).toEqual({ priority: 0, target: 'svc.example.net', params: {} });
  });

  it.each([
    [{ priority: 0, target: 'x.example', params: { alpn: ['h2'] } }, '/params', 'alias_mode_params'],
    [{ priority: 1, target: '.', params: { port: 65536 } }, '/params/port', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { port: '443' } }, '/params/port', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { mandatory: ['mandatory', 'alpn'], alpn: ['h2'] } }, '/params/mandatory', 'mandatory_lists_itself'],
    [{ priority: 1, target: '.', params: { mandatory: ['port'] } }, '/params/mandatory', 'mandatory_key_missing'],
    [{ priority: 1, target: '.', params: { mandatory: ['alpn', 'alpn'], alpn: ['h2'] } }, '/params/mandatory', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { 'no-default-alpn': true } }, '/params/no-default-alpn', 'alpn_required'],
    [{ priority: 1, target: '.', params: { 'no-default-alpn': 'yes', alpn: ['h2'] } }, '/params/no-default-alpn', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { ipv4hint: ['192.0.2.300'] } }, '/params/ipv4hint', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { ipv6hint: ['192.0.2.1'] } }, '/params/ipv6hint', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { ipv4hint: [] } }, '/params/ipv4hint', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { alpn: [''] } }, '/params/alpn', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { alpn: ['x'.repeat(256)] } }, '/params/alpn', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { alpn: ['h2\u0000'] } }, '/params/alpn', 'invalid_character'],
    [{ priority: 1, target: '.', params: { dohpath: '/dns-query' } }, '/params/dohpath', 'invalid_dohpath'],
    [{ priority: 1, target: '.', params: { dohpath: 'dns-query{?dns}' } }, '/params/dohpath', 'invalid_dohpath'],
    [{ priority: 1, target: '.', params: { dohpath: '/dns-qüery{?dns}' } }, '/params/dohpath', 'invalid_dohpath'],
    [{ priority: 1, target: '.', params: { dohpath: '/q%4{?dns}' } }, '/params/dohpath', 'invalid_dohpath'],
    [{ priority: 1, target: '.', params: { dohpath: '/q {?dns}' } }, '/params/dohpath', 'invalid_dohpath'],
    [{ priority: 1, target: '.', params: { dohpath: '/q{?dns' } }, '/params/dohpath', 'invalid_dohpath'],
    [{ priority: 1, target: '.', params: { dohpath: '/q{?dnsx}' } }, '/params/dohpath', 'invalid_dohpath'],
    [{ priority: 1, target: '.', params: { ech: 'not base64!' } }, '/params/ech', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { ech: '' } }, '/params/ech', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: { key3: 443 } }, '/params/key3', 'unknown_svc_param'],
    [{ priority: 1, target: '.', params: { key65535: '' } }, '/params/key65535', 'unknown_svc_param'],
    [{ priority: 1, target: '.', params: { foo: 'x' } }, '/params/foo', 'unknown_svc_param'],
    [{ priority: 1, target: '.', params: { key65000: 'bad \\999' } }, '/params/key65000', 'invalid_svc_param'],
    [{ priority: 1, target: '.', params: ['alpn'] }, '/params', 'invalid_type'],
    [{ priority: 65536, target: '.' }, '/priority', 'too_big'],
    [{ priority: 1, target: 'a..b' }, '/target', 'empty_label'],
  ])('%j → %s %s', (data, pointer, code) => {
    expect(problems(data)[0]).toEqual([pointer, code]);
  });

  it('dohpath with the dns variable in any expression of the template', () => {
    for (const dohpath of ['/dns-query{?dns}', '/q{?ct,dns}', '/{dns}', '/x?a=1{&dns}', '/q%C3%BC{?dns:3}', '/{+dns}{?x*}']) {
      expect(ok({ priority: 1, target: '.', params: { alpn: ['h2'], dohpath } })).toBeTruthy();
    }
  });
});

describe('random records read alike by BIND', () => {
  const text = (max: number) => fc.string({ unit: 'grapheme', maxLength: max });
  const params = fc.record(
    {
      mandatory: fc.uniqueArray(fc.constantFrom('alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath', 'key65000'), { minLength: 1, maxLength: 4 }),
      alpn: fc.array(
        text(12).filter((t) => t.length > 0 && !t.includes('\u0000')),
        { minLength: 1, maxLength: 4 },
      ),
      'no-default-alpn': fc.constant(true),
      port: fc.nat(0xffff),
      ipv4hint: fc.array(
        fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.')),
        { minLength: 1, maxLength: 3 },
      ),
      ech: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => Buffer.from(b).toString('base64')),
      ipv6hint: fc.array(
        fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) =>
          Array.from({ length: 8 }, (_, i) =>
            Buffer.from(b)
              .readUInt16BE(2 * i)
              .toString(16),
          ).join(':'),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      dohpath: fc.stringMatching(/^\/[A-Za-z0-9._~!$&()*+,;=:@/-]{0,15}(%[0-9A-F]{2})?$/).map((p) => `${p}{?dns}`),
      key65000: fc.uint8Array({ maxLength: 20 }).map((b) => escapedOctets(b)),
    },
    { requiredKeys: [] },
  );
  // What makes a record self-consistent (RFC 9460 §7.1.1, §8), as BIND also demands.
  const consistent = (p: Record<string, unknown>) => {
    const out = { ...p };
    if (out.mandatory) out.mandatory = (out.mandatory as string[]).filter((k) => k in out);
    if ((out.mandatory as string[] | undefined)?.length === 0) delete out.mandatory;
    if (!out.alpn) delete out['no-default-alpn'];
    return out;
  };

  it('200 random HTTPS records: named-compilezone prints each exactly as the API content', (ctx) => {
    const compile = requireTool('named-compilezone', ctx);
    const samples = fc.sample(
      fc.record({ priority: fc.integer({ min: 1, max: 0xffff }), target: fc.constantFrom('.', 'svc.example.net'), params: params.map(consistent) }),
      {
        numRuns: 200,
        seed: 9460,
      },
    );
    const contents = samples.map((data) => {
      const parsed = parseRecordData('HTTPS', data);
      expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
      return ruleOf('HTTPS').presentation(parsed.ok ? parsed.data : {});
    });
    const zone = [
      '$ORIGIN example.com.',
      '$TTL 300',
      '@ SOA ns1.example.net. hostmaster.example.net. 1 7200 3600 1209600 300',
      '@ NS ns1.example.net.',
      ...contents.map((c, i) => `r${i} HTTPS ${c}`),
    ].join('\n');
    const file = tempFile('random-https.zone', `${zone}\n`);
    try {
      const run = runTool(compile, ['-i', 'none', '-s', 'relative', '-o', '-', 'example.com', file.file]);
      expect(run.status, run.output).toBe(0);
      const printed = new Map<string, string>();
      for (const line of run.stdout.split('\n')) {
        const m = /^(r\d+)\s+\S*\s*(?:IN\s+)?HTTPS\s+(.*)$/.exec(line);
        if (m) printed.set(m[1]!, m[2]!);
      }
      contents.forEach((content, i) => expect(printed.get(`r${i}`), JSON.stringify(samples[i])).toBe(content));
    } finally {
      file.remove();
    }
  });
});
