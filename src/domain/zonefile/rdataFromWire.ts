// RDATA in wire form (from the RFC 3597 generic `\# <length> <hex>` presentation) converted to our
// `data` object. RFC 3597 §5: names in the generic form are uncompressed.
import { formatIpv4, formatIpv6 } from '../../../nameserver/wire/address.js';
import type { RecordType } from '../records/types.js';
import { decodeUtf8, type Decoded } from './presentationText.js';

export type RdataResult = Decoded<Record<string, unknown>>;

const invalid = (type: RecordType, detail: string): { ok: false; code: string; detail: string } => ({
  ok: false,
  code: 'invalid_rdata',
  detail: `${type} (generic \\# form): ${detail}`,
});

/** An uncompressed wire name at `offset` (RFC 1035 §3.1): text without trailing dot, '.' for the root. */
function readName(wire: Uint8Array, offset: number, field: string): Decoded<{ name: string; next: number }> {
  const labels: string[] = [];
  let i = offset;
  for (;;) {
    const len = wire[i];
    if (len === undefined) return { ok: false, code: 'invalid_rdata', detail: `"${field}": the name is truncated.` };
    if (len === 0) break;
    // RFC 1035 §4.1.4 / RFC 3597 §4: no compression pointers (0xC0) or other label types here.
    if (len > 63) return { ok: false, code: 'invalid_rdata', detail: `"${field}": compressed or extended labels are not allowed in the generic form.` };
    if (i + 1 + len > wire.length) return { ok: false, code: 'invalid_rdata', detail: `"${field}": the name is truncated.` };
    const octets = wire.subarray(i + 1, i + 1 + len);
    if (octets.includes(0x2e)) {
      return { ok: false, code: 'invalid_character', detail: `"${field}": a label contains a dot; labels may contain only a-z, 0-9, "-" and "_".` };
    }
    const label = decodeUtf8(octets);
    if (label === null) return { ok: false, code: 'invalid_character', detail: `"${field}": a label is not valid UTF-8.` };
    labels.push(label);
    i += 1 + len;
  }
  return { ok: true, value: { name: labels.length ? labels.join('.').toLowerCase() : '.', next: i + 1 } };
}

const u16 = (wire: Uint8Array, i: number) => ((wire[i] ?? 0) << 8) | (wire[i + 1] ?? 0);

/** Fixed 16-bit fields followed by one name that ends the RDATA (MX, SRV, and CNAME/NS/PTR with none). */
function uintsThenName(type: RecordType, wire: Uint8Array, fields: readonly string[], nameField: string): RdataResult {
  if (wire.length < fields.length * 2 + 1) return invalid(type, `too short for ${[...fields, nameField].map((f) => `"${f}"`).join(', ')}.`);
  const data: Record<string, unknown> = {};
  fields.forEach((f, k) => (data[f] = u16(wire, 2 * k)));
  const name = readName(wire, fields.length * 2, nameField);
  if (!name.ok) return name.code === 'invalid_rdata' ? invalid(type, name.detail) : name;
  if (name.value.next !== wire.length) return invalid(type, `${wire.length - name.value.next} octets after "${nameField}".`);
  data[nameField] = name.value.name;
  return { ok: true, value: data };
}

/** Our `data` object for the wire RDATA of a supported type. */
export function rdataFromWire(type: RecordType, wire: Uint8Array): RdataResult {
  switch (type) {
    case 'A':
      if (wire.length !== 4) return invalid(type, `"address" is 4 octets, not ${wire.length}.`);
      return { ok: true, value: { address: formatIpv4(Buffer.from(wire), 0) } };
    case 'AAAA': {
      if (wire.length !== 16) return invalid(type, `"address" is 16 octets, not ${wire.length}.`);
      return { ok: true, value: { address: formatIpv6(Buffer.from(wire), 0) } };
    }
    case 'CNAME':
    case 'PTR':
      return uintsThenName(type, wire, [], 'target');
    case 'NS':
      return uintsThenName(type, wire, [], 'nameserver');
    case 'MX':
      return uintsThenName(type, wire, ['preference'], 'exchange');
    case 'SRV':
      return uintsThenName(type, wire, ['priority', 'weight', 'port'], 'target');
    case 'TXT': {
      // RFC 1035 §3.3.14: one or more <character-string>s, each a length octet and that many octets.
      if (wire.length === 0) return invalid(type, '"text" needs at least one character-string.');
      const parts: Uint8Array[] = [];
      for (let i = 0; i < wire.length; ) {
        const len = wire[i]!;
        if (i + 1 + len > wire.length) return invalid(type, '"text": a character-string is longer than the RDATA.');
        parts.push(wire.subarray(i + 1, i + 1 + len));
        i += 1 + len;
      }
      const octets = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
      let at = 0;
      for (const p of parts) {
        octets.set(p, at);
        at += p.length;
      }
      const text = decodeUtf8(octets);
      if (text === null) return invalid(type, '"text" is not valid UTF-8.');
      return { ok: true, value: { text } };
    }
    case 'CAA': {
      // RFC 8659 §4.1: flags (1 octet), tag length (1 octet), tag, value (the rest).
      if (wire.length < 2) return invalid(type, 'too short for "flags" and "tag".');
      const tagLength = wire[1]!;
      if (2 + tagLength > wire.length) return invalid(type, '"tag" is longer than the RDATA.');
      const tag = decodeUtf8(wire.subarray(2, 2 + tagLength));
      const value = decodeUtf8(wire.subarray(2 + tagLength));
      if (tag === null) return invalid(type, '"tag" is not valid UTF-8.');
      if (value === null) return invalid(type, '"value" is not valid UTF-8.');
      return { ok: true, value: { flags: wire[0]!, tag, value } };
    }
    case 'TLSA':
      // RFC 6698 §2.1: usage, selector, matching type (1 octet each), then the association data.
      if (wire.length < 3) return invalid(type, 'too short for "usage", "selector" and "matching_type".');
      return {
        ok: true,
        value: {
          usage: wire[0]!,
          selector: wire[1]!,
          matching_type: wire[2]!,
          certificate_data: Array.from(wire.subarray(3), (b) => b.toString(16).padStart(2, '0')).join(''),
        },
      };
  }
}
