// SVCB (64) and HTTPS (65), RFC 9460 §2.2: SvcPriority (16 bits), TargetName (a name, never
// compressed), then SvcParams to the end of the RDATA, each a key (16 bits), a value length (16
// bits) and the value, keys in strictly ascending order. The keys this module knows are the IANA
// "Service Parameter Keys (SvcParamKeys)" registry's: mandatory … ipv6hint (RFC 9460 §7, §8),
// dohpath (RFC 9461 §5), ohttp (RFC 9540 §4); any other key is `keyNNNNN` with an opaque value.
//
// Data: { priority, target, params }, params an object keyed by SvcParamKey name:
//   mandatory: ["alpn", "port"]        alpn: ["h3", "h2"]         no-default-alpn: true
//   port: 443                          ipv4hint: ["192.0.2.1"]    ech: "<base64>"
//   ipv6hint: ["2001:db8::1"]          dohpath: "/q{?dns}"        ohttp: true
//   key65000: "<octets as a presentation string: \DDD, \" and \\ escaped>"
// Which combinations make sense (mandatory lists present keys, no params in alias mode, …) is
// policy (src/domain/records/svcb.ts); what is here is what the wire can hold.
//
// Presentation (RFC 9460 §2.1, Appendix A) as BIND 9 prints it: keys in ascending order, by name
// up to ipv6hint and as keyNNNNN after it; alpn quoted, its ids comma-separated with "," and "\"
// inside an id escaped; opaque and dohpath values quoted; an empty value as the bare key. Input
// takes both spellings of every key.
import { formatIpv4, formatIpv6, writeIpv4, writeIpv6 } from '../address.js';
import { Malformed, quoted, type RdataReader, type RecordCodec } from '../rdataCodec.js';

/** The registered SvcParamKeys by name (IANA registry; RFC 9460 §14.3.2, RFC 9461, RFC 9540). */
export const SVC_PARAM_KEYS = {
  mandatory: 0,
  alpn: 1,
  'no-default-alpn': 2,
  port: 3,
  ipv4hint: 4,
  ech: 5,
  ipv6hint: 6,
  dohpath: 7,
  ohttp: 8,
} as const;
export type SvcParamName = keyof typeof SVC_PARAM_KEYS;

/** RFC 9460 §14.3.2: 65535 is reserved ("Invalid key"). */
const INVALID_KEY = 65535;
const NAME_OF_KEY: ReadonlyMap<number, string> = new Map(Object.entries(SVC_PARAM_KEYS).map(([name, code]) => [code, name]));
const KEY_OF_NAME: ReadonlyMap<string, number> = new Map(Object.entries(SVC_PARAM_KEYS));
// RFC 9460 §2.1: keyNNNNN, the number without leading zeros.
const GENERIC_KEY = /^key(0|[1-9][0-9]{0,4})$/;

/** The name of a key in our data: its registered name, else keyNNNNN. */
export const svcParamKeyName = (code: number): string => NAME_OF_KEY.get(code) ?? `key${code}`;

/**
 * The name of a key in the presentation we write: the names of RFC 9460's own keys (0–6), keyNNNNN
 * for the rest (dohpath is key7, ohttp key8), as BIND 9 prints them; RFC 9460 §2.1 allows either
 * spelling, and keyNNNNN is the one every reader (BIND 9.18, Knot 3.2) understands.
 */
const LAST_KEY_PRINTED_BY_NAME = SVC_PARAM_KEYS.ipv6hint;
const printedKeyName = (code: number): string => (code <= LAST_KEY_PRINTED_BY_NAME ? svcParamKeyName(code) : `key${code}`);

/**
 * The number of a key as the presentation form writes it (a registered name or keyNNNNN, also for
 * a registered key); RangeError for anything else and for the reserved 65535.
 */
function svcParamKeyCode(name: string): number {
  const registered = KEY_OF_NAME.get(name);
  if (registered !== undefined) return registered;
  const m = GENERIC_KEY.exec(name);
  if (!m || Number(m[1]) > 0xffff) throw new RangeError(`"${name}" is not a SvcParamKey (a registered name such as "alpn", or key0 to key65534)`);
  if (Number(m[1]) === INVALID_KEY) throw new RangeError('key65535 is reserved as the invalid key (RFC 9460 §14.3.2)');
  return Number(m[1]);
}

/**
 * The number of a key as our data names it: the registered name, keyNNNNN only for keys without
 * one (so each key has one spelling and a record one form).
 */
export function svcParamDataKeyCode(name: string): number {
  const code = svcParamKeyCode(name);
  if (!KEY_OF_NAME.has(name) && NAME_OF_KEY.has(code)) throw new RangeError(`"${name}" has a registered name: write "${NAME_OF_KEY.get(code)}"`);
  return code;
}

// fatal: refuse invalid UTF-8 instead of replacing it; ignoreBOM: an EF BB BF is data.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^[0-9]+$/;

function utf8Text(octets: Uint8Array, what: () => Error): string {
  try {
    return utf8.decode(octets);
  } catch {
    throw what();
  }
}

function utf8Octets(text: string, what: string): Buffer {
  if (LONE_SURROGATE.test(text)) throw new RangeError(`${what} contains an unpaired UTF-16 surrogate`);
  return Buffer.from(text, 'utf8');
}

/** Octets as our data writes an opaque value: a quoted string's inside (`\"`, `\\`, \DDD outside printable ASCII). */
export const escapedOctets = (octets: Uint8Array): string => quoted(octets).slice(1, -1);

/** The inverse of escapedOctets: `\DDD` is an octet, `\X` is X, other characters their UTF-8. */
function unescapeOctets(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    if (cp !== 0x5c) {
      if (cp < 0x80) out.push(cp);
      else out.push(...utf8Octets(String.fromCodePoint(cp), 'the value'));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const ddd = /^[0-9]{3}/.exec(text.slice(i + 1, i + 4));
    if (ddd) {
      if (Number(ddd[0]) > 255) throw new RangeError(`"\\${ddd[0]}" is not an octet (\\000 to \\255)`);
      out.push(Number(ddd[0]));
      i += 4;
    } else if (/^[0-9]/.test(text.slice(i + 1))) {
      throw new RangeError('a \\DDD escape has exactly three decimal digits');
    } else if (i + 1 >= text.length) {
      throw new RangeError('a backslash at the end escapes nothing');
    } else {
      const next = text.codePointAt(i + 1)!;
      out.push(...utf8Octets(String.fromCodePoint(next), 'the value'));
      i += next > 0xffff ? 3 : 2;
    }
  }
  return Buffer.from(out);
}

/** One SvcParamValue format: data ⇄ wire ⇄ presentation. */
interface ParamFormat {
  /** data → wire; RangeError naming the problem. */
  toWire(value: unknown): Buffer;
  /** wire → data; Malformed. */
  toData(octets: Buffer): unknown;
  /** wire → presentation after "=", '' for a bare key; Malformed. */
  toText(octets: Buffer): string;
  /** presentation value (its character-string decoded; null without "=") → data; RangeError. */
  fromText(octets: Buffer | null): unknown;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};

function listOf(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw new RangeError(`expected a non-empty list of ${what}`);
  return value;
}

/** RFC 9460 §8: mandatory, a list of keys in strictly ascending order. */
const keyList: ParamFormat = {
  toWire(value) {
    const codes = listOf(value, 'SvcParamKeys').map((k) => {
      if (typeof k !== 'string') throw new RangeError(`"${String(k)}" is not a SvcParamKey`);
      return svcParamDataKeyCode(k);
    });
    codes.sort((a, b) => a - b);
    for (let i = 1; i < codes.length; i++) if (codes[i] === codes[i - 1]) throw new RangeError(`lists "${svcParamKeyName(codes[i]!)}" twice`);
    return Buffer.concat(codes.map(u16));
  },
  toData(octets) {
    if (octets.length === 0 || octets.length % 2) throw new Malformed();
    const codes: number[] = [];
    for (let i = 0; i < octets.length; i += 2) {
      const code = octets.readUInt16BE(i);
      if (codes.length && code <= codes[codes.length - 1]!) throw new Malformed();
      if (code === INVALID_KEY) throw new Malformed();
      codes.push(code);
    }
    return codes.map(svcParamKeyName);
  },
  toText: (octets) => {
    keyList.toData(octets);
    const codes: number[] = [];
    for (let i = 0; i < octets.length; i += 2) codes.push(octets.readUInt16BE(i));
    return codes.map(printedKeyName).join(',');
  },
  fromText(octets) {
    if (!octets?.length) throw new RangeError('needs a list of keys');
    const names = octets.toString('latin1').split(',');
    return keyList.toData(keyList.toWire(names.map((n) => svcParamKeyName(svcParamKeyCode(n)))));
  },
};

/** alpn (RFC 9460 §7.1): ALPN protocol ids, each a non-empty <character-string>. */
const alpnList: ParamFormat = {
  toWire(value) {
    const parts: Buffer[] = [];
    for (const id of listOf(value, 'ALPN protocol ids')) {
      if (typeof id !== 'string') throw new RangeError(`the ALPN id ${String(id)} is not a string`);
      const octets = utf8Octets(id, 'an ALPN id');
      if (octets.length === 0 || octets.length > 255) throw new RangeError(`the ALPN id "${id}" must be 1 to 255 octets`);
      parts.push(Buffer.from([octets.length]), octets);
    }
    return Buffer.concat(parts);
  },
  toData(octets) {
    const ids: string[] = [];
    for (let i = 0; i < octets.length; ) {
      const length = octets[i]!;
      if (length === 0 || i + 1 + length > octets.length) throw new Malformed();
      ids.push(utf8Text(octets.subarray(i + 1, i + 1 + length), () => new Malformed()));
      i += 1 + length;
    }
    if (ids.length === 0) throw new Malformed();
    return ids;
  },
  toText(octets) {
    alpnList.toData(octets);
    const ids: string[] = [];
    for (let i = 0; i < octets.length; i += 1 + octets[i]!) ids.push(alpnIdText(octets.subarray(i + 1, i + 1 + octets[i]!)));
    return `"${ids.join(',')}"`;
  },
  fromText(octets) {
    if (!octets?.length) throw new RangeError('needs a list of ALPN ids');
    // RFC 9460 Appendix A.1: after the character-string is decoded, "," separates the items and
    // "\" makes the next octet (a "," or a "\") part of the item.
    const items: number[][] = [[]];
    for (let i = 0; i < octets.length; i++) {
      const o = octets[i]!;
      if (o === 0x5c) {
        if (i + 1 >= octets.length) throw new RangeError('ends in a backslash that escapes nothing');
        items[items.length - 1]!.push(octets[++i]!);
      } else if (o === 0x2c) items.push([]);
      else items[items.length - 1]!.push(o);
    }
    return items.map((item) => {
      if (item.length === 0) throw new RangeError('has an empty ALPN id');
      return utf8Text(Uint8Array.from(item), () => new RangeError('has an ALPN id that is not UTF-8'));
    });
  },
};

/**
 * An ALPN id inside BIND's quoted alpn value: "," and "\" escaped for the list and then again for
 * the character-string (`\\,`, `\\\\`), `"` as `\"`, octets outside "!" to "~" as \DDD.
 */
function alpnIdText(id: Uint8Array): string {
  let out = '';
  for (const o of id) {
    if (o === 0x2c) out += '\\\\,';
    else if (o === 0x5c) out += '\\\\\\\\';
    else if (o === 0x22) out += '\\"';
    else if (o > 0x20 && o < 0x7f) out += String.fromCharCode(o);
    else out += `\\${String(o).padStart(3, '0')}`;
  }
  return out;
}

/** no-default-alpn (RFC 9460 §7.1.1), ohttp (RFC 9540 §4): present or not, no value. */
const flag: ParamFormat = {
  toWire(value) {
    if (value !== true) throw new RangeError('takes no value: write true');
    return Buffer.alloc(0);
  },
  toData(octets) {
    if (octets.length) throw new Malformed();
    return true;
  },
  toText: (octets) => {
    flag.toData(octets);
    return '';
  },
  fromText(octets) {
    if (octets?.length) throw new RangeError('takes no value');
    return true;
  },
};

/** port (RFC 9460 §7.2): 16 bits. */
const port: ParamFormat = {
  toWire(value) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff) {
      throw new RangeError(`expected an integer 0–65535, got ${String(value)}`);
    }
    return u16(value);
  },
  toData(octets) {
    if (octets.length !== 2) throw new Malformed();
    return octets.readUInt16BE(0);
  },
  toText: (octets) => String(port.toData(octets)),
  fromText(octets) {
    const text = octets?.toString('latin1') ?? '';
    if (!DECIMAL.test(text) || Number(text) > 0xffff) throw new RangeError(`must be a port number 0–65535, not "${text}"`);
    return Number(text);
  },
};

/** ipv4hint, ipv6hint (RFC 9460 §7.3): addresses, 4 or 16 octets each. */
function addressList(octetsEach: 4 | 16): ParamFormat {
  const write = octetsEach === 4 ? writeIpv4 : writeIpv6;
  const format = octetsEach === 4 ? formatIpv4 : formatIpv6;
  const family = octetsEach === 4 ? 'IPv4' : 'IPv6';
  const self: ParamFormat = {
    toWire(value) {
      const list = listOf(value, `${family} addresses`);
      const out = Buffer.alloc(list.length * octetsEach);
      list.forEach((a, i) => {
        if (typeof a !== 'string' || !write(out, i * octetsEach, a)) throw new RangeError(`"${String(a)}" is not an ${family} address`);
      });
      return out;
    },
    toData(octets) {
      if (octets.length === 0 || octets.length % octetsEach) throw new Malformed();
      const list: string[] = [];
      for (let i = 0; i < octets.length; i += octetsEach) list.push(format(octets, i));
      return list;
    },
    toText: (octets) => (self.toData(octets) as string[]).join(','),
    fromText(octets) {
      if (!octets?.length) throw new RangeError(`needs a list of ${family} addresses`);
      return self.toData(self.toWire(octets.toString('latin1').split(',')));
    },
  };
  return self;
}

/** ech (RFC 9460 §7.3, RFC 9849): an ECHConfigList, base64 in presentation and in our data. */
const base64: ParamFormat = {
  toWire(value) {
    if (typeof value !== 'string' || !BASE64.test(value)) throw new RangeError('expected base64 (RFC 4648 §4, padded, no whitespace)');
    return Buffer.from(value, 'base64');
  },
  toData: (octets) => octets.toString('base64'),
  toText: (octets) => octets.toString('base64'),
  fromText: (octets) => {
    const text = octets?.toString('latin1') ?? '';
    base64.toWire(text);
    return text;
  },
};

/** dohpath (RFC 9461 §5): a URI template, UTF-8. */
const utf8Value: ParamFormat = {
  toWire(value) {
    if (typeof value !== 'string') throw new RangeError('expected a string');
    return utf8Octets(value, 'the value');
  },
  toData: (octets) => utf8Text(octets, () => new Malformed()),
  toText: (octets) => {
    utf8Value.toData(octets);
    return octets.length ? quoted(octets) : '';
  },
  fromText: (octets) => utf8Text(octets ?? Buffer.alloc(0), () => new RangeError('must be UTF-8')),
};

/** Keys without a registered format (RFC 9460 §2.1): opaque octets. */
const opaque: ParamFormat = {
  toWire(value) {
    if (typeof value !== 'string') throw new RangeError('expected a string (octets, with \\DDD escapes)');
    return unescapeOctets(value);
  },
  toData: (octets) => escapedOctets(octets),
  toText: (octets) => (octets.length ? quoted(octets) : ''),
  fromText: (octets) => escapedOctets(octets ?? Buffer.alloc(0)),
};

const FORMAT_OF: ReadonlyMap<number, ParamFormat> = new Map([
  [SVC_PARAM_KEYS.mandatory, keyList],
  [SVC_PARAM_KEYS.alpn, alpnList],
  [SVC_PARAM_KEYS['no-default-alpn'], flag],
  [SVC_PARAM_KEYS.port, port],
  [SVC_PARAM_KEYS.ipv4hint, addressList(4)],
  [SVC_PARAM_KEYS.ech, base64],
  [SVC_PARAM_KEYS.ipv6hint, addressList(16)],
  [SVC_PARAM_KEYS.dohpath, utf8Value],
  [SVC_PARAM_KEYS.ohttp, flag],
]);
const formatOf = (code: number): ParamFormat => FORMAT_OF.get(code) ?? opaque;

/**
 * One SvcParam of the presentation form to our data: `key` as written (a name or keyNNNNN) and
 * its value, the character-string decoded to octets (null when there is no "="). keyNNNNN of a
 * registered key holds that key's wire form (RFC 9460 §2.1), read as such. RangeError when wrong.
 */
export function svcParamFromPresentation(key: string, value: Buffer | null): { name: string; value: unknown } {
  const code = svcParamKeyCode(key);
  const name = svcParamKeyName(code);
  const format = formatOf(code);
  try {
    if (KEY_OF_NAME.has(key) || !NAME_OF_KEY.has(code)) return { name, value: format.fromText(value) };
    return { name, value: format.toData(value ?? Buffer.alloc(0)) };
  } catch (e) {
    if (e instanceof Malformed) throw new RangeError(`${key}: the value is not the wire form of ${name}`);
    if (e instanceof RangeError) throw new RangeError(`${name}: ${e.message}`);
    throw e;
  }
}

/** Reads the SvcParams to the end of the RDATA: keys strictly ascending, never 65535 (RFC 9460 §2.2). */
function readParams(r: RdataReader, each: (code: number, octets: Buffer) => void): void {
  let last = -1;
  while (!r.done()) {
    const code = r.u16();
    if (code <= last || code === INVALID_KEY) throw new Malformed();
    last = code;
    each(code, r.octets(r.u16()));
  }
}

function paramWire(code: number, value: unknown, fail: (problem: string) => never): Buffer {
  try {
    return formatOf(code).toWire(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return fail(e.message);
  }
}

function svcbCodec(type: 'SVCB' | 'HTTPS'): RecordCodec {
  return {
    type,
    fields: [
      ['priority', 'uint'],
      ['target', 'name'],
      ['params', 'svcparams'],
    ],
    encode: (b) => {
      b.u16('priority');
      b.name('target');
      const params = b.value('params') ?? {};
      if (typeof params !== 'object' || params === null || Array.isArray(params)) b.fail('params', 'expected an object of SvcParams');
      const entries: [code: number, name: string, value: unknown][] = [];
      for (const [name, value] of Object.entries(params)) {
        try {
          entries.push([svcParamDataKeyCode(name), name, value]);
        } catch (e) {
          b.fail('params', (e as Error).message);
        }
      }
      entries.sort((x, y) => x[0] - y[0]);
      // Each key has one spelling in our data (svcParamDataKeyCode), so no key comes twice.
      for (const [code, name, value] of entries) {
        const octets = paramWire(code, value, (problem) => b.fail('params', `${name}: ${problem}`));
        if (octets.length > 0xffff) b.fail('params', `${name}: the value is longer than 65535 octets`);
        const header = Buffer.alloc(4);
        header.writeUInt16BE(code, 0);
        header.writeUInt16BE(octets.length, 2);
        b.octets('params', Buffer.concat([header, octets]));
      }
    },
    decode: (r) => {
      const priority = r.u16();
      const target = r.name();
      const params: Record<string, unknown> = {};
      readParams(r, (code, octets) => {
        params[svcParamKeyName(code)] = formatOf(code).toData(octets);
      });
      return { priority, target, params };
    },
    format: (r) => {
      const parts = [String(r.u16()), r.presentationName()];
      readParams(r, (code, octets) => {
        const value = formatOf(code).toText(octets);
        parts.push(value === '' ? printedKeyName(code) : `${printedKeyName(code)}=${value}`);
      });
      return parts.join(' ');
    },
  };
}

export const svcb = svcbCodec('SVCB');
export const https = svcbCodec('HTTPS');

/**
 * A SvcParam of our data in its one stored form (mandatory sorted, addresses as the address
 * module writes them): the value through the wire and back. RangeError when the key is unknown
 * or the value cannot be put on the wire.
 */
export function canonicalSvcParam(name: string, value: unknown): unknown {
  const format = formatOf(svcParamDataKeyCode(name));
  return format.toData(format.toWire(value));
}
