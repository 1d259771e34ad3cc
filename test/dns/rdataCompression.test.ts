// Names inside RDATA are compressed for the RFC 1035 types (RFC 3597 §4: NS, CNAME, SOA, PTR,
// MX), as NSD and Knot do: each response's exact size is worked out by hand below (Knot 3.2.6
// serving the same zone answers these questions with exactly these sizes but for SRV, checked by
// hand with dig's MSG SIZE), and BIND's dig and Knot's kdig must read the compressed answers as
// the same records. Other types' RDATA names
// (SRV here) stay uncompressed, as RFC 3597 §4 requires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { TYPE } from '../../nameserver/types.js';
import { requireTool } from '../helpers/dnsTools.js';
import { digQuery } from '../helpers/digClient.js';
import { exampleRecords, reverseRecords, startTestServer, storeWith } from '../helpers/fixtureZones.js';
import { buildQuery } from '../helpers/tcpClient.js';

/**
 * Octets of each response, over UDP without EDNS. Header 12; question = name + 4; each record =
 * owner + 10 + RDATA; a pointer is 2 octets, a label its length + 1, the root 1.
 */
interface SizeRow {
  title: string;
  name: string;
  type: keyof typeof TYPE;
  size: number;
  /** The size with every RDATA name written whole, as before compression. */
  uncompressed: number;
  answer?: string[];
  authority?: string[];
  additional?: string[];
}

const SOA = 'example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 2026010101 3600 600 604800 300';

const rows: SizeRow[] = [
  {
    // Question nx.example.com: 3 + 8 + 4 + 1 = 16, + 4. SOA owner: pointer to example.com in the
    // question. RDATA: ns1 + pointer (4 + 2), hostmaster + pointer (11 + 2), 20 octets of counters.
    title: 'NXDOMAIN: the SOA in authority',
    name: 'nx.example.com',
    type: 'A',
    size: 12 + (16 + 4) + (2 + 10 + (6 + 13 + 20)),
    uncompressed: 12 + (16 + 4) + (2 + 10 + (17 + 24 + 20)),
    authority: [SOA.replace(' 3600 IN', ' 300 IN')],
  },
  {
    // Question example.com: 13 + 4. RDATA: ns1 + pointer, hostmaster + pointer, counters.
    title: 'SOA',
    name: 'example.com',
    type: 'SOA',
    size: 12 + 17 + (2 + 10 + (6 + 13 + 20)),
    uncompressed: 12 + 17 + (2 + 10 + (17 + 24 + 20)),
    answer: [SOA],
  },
  {
    // Two NS records (owner pointers, RDATA ns1/ns2 + pointer); their addresses' owners then point
    // into that RDATA.
    title: 'NS with addresses',
    name: 'example.com',
    type: 'NS',
    size: 12 + 17 + 2 * (2 + 10 + 6) + 2 * (2 + 10 + 4),
    // Whole RDATA names were not compression targets either: each address owner was label + pointer.
    uncompressed: 12 + 17 + 2 * (2 + 10 + 17) + 2 * (6 + 10 + 4),
    answer: ['example.com. 3600 IN NS ns1.example.com.', 'example.com. 3600 IN NS ns2.example.com.'],
    additional: ['ns1.example.com. 3600 IN A 192.0.2.1', 'ns2.example.com. 3600 IN A 192.0.2.2'],
  },
  {
    // Question alias.example.com: 6 + 8 + 4 + 1 = 19, + 4. RDATA: www + pointer.
    title: 'CNAME',
    name: 'alias.example.com',
    type: 'CNAME',
    size: 12 + 23 + (2 + 10 + 6),
    uncompressed: 12 + 23 + (2 + 10 + 17),
    answer: ['alias.example.com. 300 IN CNAME www.example.com.'],
  },
  {
    // A chain: chain2's owner points into chain1's RDATA, www's owner into chain2's.
    title: 'CNAME chain',
    name: 'chain1.example.com',
    type: 'A',
    size: 12 + (20 + 4) + (2 + 10 + 9) + (2 + 10 + 6) + (2 + 10 + 4),
    uncompressed: 12 + (20 + 4) + (2 + 10 + 20) + (9 + 10 + 17) + (6 + 10 + 4),
    answer: [
      'chain1.example.com. 300 IN CNAME chain2.example.com.',
      'chain2.example.com. 300 IN CNAME www.example.com.',
      'www.example.com. 300 IN A 192.0.2.10',
    ],
  },
  {
    // RDATA: preference, mail + pointer; the address's owner points into it.
    title: 'MX with the exchange address',
    name: 'example.com',
    type: 'MX',
    size: 12 + 17 + (2 + 10 + (2 + 5 + 2)) + (2 + 10 + 4),
    uncompressed: 12 + 17 + (2 + 10 + (2 + 17)) + (7 + 10 + 4),
    answer: ['example.com. 3600 IN MX 10 mail.example.com.'],
    additional: ['mail.example.com. 3600 IN A 192.0.2.25'],
  },
  {
    // Question 10.2.0.192.in-addr.arpa: 3 + 2 + 2 + 4 + 8 + 5 + 1 = 25, + 4. Nothing of
    // www.example.com is in the message yet: whole.
    title: 'PTR',
    name: '10.2.0.192.in-addr.arpa',
    type: 'PTR',
    size: 12 + 29 + (2 + 10 + 17),
    uncompressed: 12 + 29 + (2 + 10 + 17),
    answer: ['10.2.0.192.in-addr.arpa. 300 IN PTR www.example.com.'],
  },
  {
    // SRV is not an RFC 1035 type: its target stays whole (RFC 3597 §4, RFC 2782), and is not
    // made a compression target either, so the address's owner is sip + pointer. (Knot points it
    // into the SRV RDATA: 4 octets less.)
    title: 'SRV target not compressed',
    name: '_sip._tcp.example.com',
    type: 'SRV',
    size: 12 + (23 + 4) + (2 + 10 + (6 + 17)) + (6 + 10 + 4),
    uncompressed: 12 + (23 + 4) + (2 + 10 + (6 + 17)) + (6 + 10 + 4),
    answer: ['_sip._tcp.example.com. 300 IN SRV 10 60 5060 sip.example.com.'],
    additional: ['sip.example.com. 300 IN A 192.0.2.30'],
  },
];

describe('names in RDATA compressed (RFC 3597 §4)', () => {
  let server: DnsServer;

  beforeAll(async () => {
    ({ server } = await startTestServer(storeWith({ 'example.com': exampleRecords(), '2.0.192.in-addr.arpa': reverseRecords() })));
  });
  afterAll(() => server.close());

  const reply = (name: string, type: number, edns?: number): Buffer => {
    const r = server.handler.handleQuery(buildQuery(1, name, type, { edns }), { transport: 'udp', remoteAddress: '127.0.0.1' });
    if (!Buffer.isBuffer(r)) throw new Error('no reply');
    return r;
  };

  it.for(rows)('$title: the size worked out by hand', (row) => {
    expect(reply(row.name, TYPE[row.type]).length).toBe(row.size);
    // With EDNS the OPT record adds its 11 octets and nothing else changes.
    expect(reply(row.name, TYPE[row.type], 1232).length).toBe(row.size + 11);
  });

  it('NXDOMAIN is 22 octets smaller than with whole RDATA names (83 octets, as Knot answers)', () => {
    const nx = rows[0]!;
    expect(nx.uncompressed - nx.size).toBe(22);
    expect(reply(nx.name, TYPE.A).length).toBe(83);
  });

  for (const tool of ['dig', 'kdig'] as const) {
    for (const transport of ['udp', 'tcp'] as const) {
      it.for(rows)(`${tool} over ${transport.toUpperCase()} reads $title as the same records`, async (row, ctx) => {
        const got = await digQuery(requireTool(tool, ctx), server.port, row.name, row.type, transport === 'tcp' ? ['+tcp'] : []);
        expect(got.answer, got.output).toEqual(row.answer ?? []);
        expect(got.authority, got.output).toEqual(row.authority ?? []);
        expect(got.additional, got.output).toEqual(row.additional ?? []);
      });
    }
  }
});
