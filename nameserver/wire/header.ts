// The fixed 12-octet message header (RFC 1035 §4.1.1; AD and CD from RFC 4035 §3.2).
//   0-1 ID   2-3 flags: QR | OPCODE(4) | AA | TC | RD | RA | Z | AD | CD | RCODE(4)
//   4-5 QDCOUNT   6-7 ANCOUNT   8-9 NSCOUNT   10-11 ARCOUNT

export const HEADER_OCTETS = 12;

export const FLAG = {
  QR: 0x8000,
  AA: 0x0400,
  TC: 0x0200,
  RD: 0x0100,
  RA: 0x0080,
  AD: 0x0020,
  CD: 0x0010,
} as const;

/** Offsets of QDCOUNT, ANCOUNT, NSCOUNT and ARCOUNT. */
export const COUNT_OFFSET = { question: 4, answer: 6, authority: 8, additional: 10 } as const;

export const opcodeOf = (flags: number): number => (flags >> 11) & 0x0f;

export interface HeaderFlags {
  opcode: number;
  /** Only the low 4 bits go in the header; the rest travels in OPT (RFC 6891 §6.1.3). */
  rcode: number;
  qr?: boolean;
  aa?: boolean;
  tc?: boolean;
  rd?: boolean;
  ra?: boolean;
  ad?: boolean;
  cd?: boolean;
}

/** The flags word: the opcode in bits 11–14, the low 4 bits of the rcode in bits 0–3. */
export function flagsWord(h: HeaderFlags): number {
  return (
    (h.qr ? FLAG.QR : 0) |
    ((h.opcode & 0x0f) << 11) |
    (h.aa ? FLAG.AA : 0) |
    (h.tc ? FLAG.TC : 0) |
    (h.rd ? FLAG.RD : 0) |
    (h.ra ? FLAG.RA : 0) |
    (h.ad ? FLAG.AD : 0) |
    (h.cd ? FLAG.CD : 0) |
    (h.rcode & 0x0f)
  );
}
