// The nameserver as BIND's dig and Knot's kdig see it: a table of questions and the answers two
// independent clients must print, over UDP and TCP, then the behaviours a table row cannot show
// (truncation and the TCP retry, EDNS, BADVERS, NSID, IPv6). The server runs in this process on a
// free port, serving zones built in the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { requireTool } from '../helpers/dnsTools.js';
import { digQuery, type DigResult } from '../helpers/digClient.js';
import { exampleRecords, hasIpv6Loopback, LONG_TEXT, reverseRecords, startTestServer, storeWith, TLSA_HEX } from '../helpers/fixtureZones.js';

const SOA = 'example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 2026010101 3600 600 604800 300';
// RFC 2308 §3, §5: negative answers carry the SOA with TTL min(SOA TTL, MINIMUM) = 300.
const NEGATIVE_SOA = SOA.replace(' 3600 IN', ' 300 IN');
const WWW_A = 'www.example.com. 300 IN A 192.0.2.10';
const LONG_STRINGS = [LONG_TEXT.slice(0, 255), LONG_TEXT.slice(255, 510), LONG_TEXT.slice(510, 765), LONG_TEXT.slice(765)].map((s) => `"${s}"`).join(' ');

interface Row {
  title: string;
  name: string;
  type: string;
  status: string;
  aa: boolean;
  answer?: string[];
  authority?: string[];
  additional?: string[];
  /** kdig lower-cases the name it sends, so the case echo can only be seen with dig. */
  digOnly?: boolean;
}

const table: Row[] = [
  { title: 'A', name: 'www.example.com', type: 'A', status: 'NOERROR', aa: true, answer: [WWW_A] },
  { title: 'AAAA', name: 'www.example.com', type: 'AAAA', status: 'NOERROR', aa: true, answer: ['www.example.com. 300 IN AAAA 2001:db8::10'] },
  {
    title: 'CNAME asked for itself',
    name: 'alias.example.com',
    type: 'CNAME',
    status: 'NOERROR',
    aa: true,
    answer: ['alias.example.com. 300 IN CNAME www.example.com.'],
  },
  {
    title: 'CNAME followed inside the zone',
    name: 'alias.example.com',
    type: 'A',
    status: 'NOERROR',
    aa: true,
    answer: ['alias.example.com. 300 IN CNAME www.example.com.', WWW_A],
  },
  {
    title: 'CNAME chain of two',
    name: 'chain1.example.com',
    type: 'A',
    status: 'NOERROR',
    aa: true,
    answer: ['chain1.example.com. 300 IN CNAME chain2.example.com.', 'chain2.example.com. 300 IN CNAME www.example.com.', WWW_A],
  },
  {
    title: 'CNAME leaving the zone',
    name: 'external.example.com',
    type: 'A',
    status: 'NOERROR',
    aa: true,
    answer: ['external.example.com. 300 IN CNAME www.example.net.'],
  },
  {
    title: 'MX with the exchange address as additional data',
    name: 'example.com',
    type: 'MX',
    status: 'NOERROR',
    aa: true,
    answer: ['example.com. 3600 IN MX 10 mail.example.com.'],
    additional: ['mail.example.com. 3600 IN A 192.0.2.25'],
  },
  { title: 'TXT', name: 'txt.example.com', type: 'TXT', status: 'NOERROR', aa: true, answer: ['txt.example.com. 300 IN TXT "hello world"'] },
  {
    title: 'TXT of 1000 octets as four strings',
    name: 'long.example.com',
    type: 'TXT',
    status: 'NOERROR',
    aa: true,
    answer: [`long.example.com. 300 IN TXT ${LONG_STRINGS}`],
  },
  {
    title: 'SRV with the target address',
    name: '_sip._tcp.example.com',
    type: 'SRV',
    status: 'NOERROR',
    aa: true,
    answer: ['_sip._tcp.example.com. 300 IN SRV 10 60 5060 sip.example.com.'],
    additional: ['sip.example.com. 300 IN A 192.0.2.30'],
  },
  { title: 'CAA', name: 'example.com', type: 'CAA', status: 'NOERROR', aa: true, answer: ['example.com. 3600 IN CAA 0 issue "letsencrypt.org"'] },
  {
    title: 'TLSA',
    name: '_443._tcp.www.example.com',
    type: 'TLSA',
    status: 'NOERROR',
    aa: true,
    answer: [`_443._tcp.www.example.com. 300 IN TLSA 3 1 1 ${TLSA_HEX.toUpperCase()}`],
  },
  {
    title: 'NS at the apex with addresses',
    name: 'example.com',
    type: 'NS',
    status: 'NOERROR',
    aa: true,
    answer: ['example.com. 3600 IN NS ns1.example.com.', 'example.com. 3600 IN NS ns2.example.com.'],
    additional: ['ns1.example.com. 3600 IN A 192.0.2.1', 'ns2.example.com. 3600 IN A 192.0.2.2'],
  },
  { title: 'SOA', name: 'example.com', type: 'SOA', status: 'NOERROR', aa: true, answer: [SOA] },
  {
    title: 'PTR in a reverse zone',
    name: '10.2.0.192.in-addr.arpa',
    type: 'PTR',
    status: 'NOERROR',
    aa: true,
    answer: ['10.2.0.192.in-addr.arpa. 300 IN PTR www.example.com.'],
  },
  { title: 'NXDOMAIN: SOA with the negative TTL', name: 'nx.example.com', type: 'A', status: 'NXDOMAIN', aa: true, authority: [NEGATIVE_SOA] },
  { title: 'NODATA: name without the type', name: 'www.example.com', type: 'MX', status: 'NOERROR', aa: true, authority: [NEGATIVE_SOA] },
  { title: 'NODATA at an empty non-terminal', name: '_tcp.example.com', type: 'A', status: 'NOERROR', aa: true, authority: [NEGATIVE_SOA] },
  {
    title: 'referral: AA clear, NS in authority, glue',
    name: 'www.sub.example.com',
    type: 'A',
    status: 'NOERROR',
    aa: false,
    authority: ['sub.example.com. 86400 IN NS ns1.sub.example.com.'],
    additional: ['ns1.sub.example.com. 86400 IN A 192.0.2.53'],
  },
  {
    title: 'case of the question echoed',
    name: 'WwW.ExAmPlE.CoM',
    type: 'A',
    status: 'NOERROR',
    aa: true,
    answer: ['WwW.ExAmPlE.CoM. 300 IN A 192.0.2.10'],
    digOnly: true,
  },
  { title: 'REFUSED outside the served zones', name: 'www.example.org', type: 'A', status: 'REFUSED', aa: false },
];

/** dig splits long hex (TLSA) into groups; join them to compare. */
const canonical = (line: string) => {
  const tokens = line.split(' ');
  return tokens[3] === 'TLSA' ? [...tokens.slice(0, 7), tokens.slice(7).join('')].join(' ') : line;
};
const sorted = (lines: string[]) => lines.map(canonical).sort();

describe('dig and kdig against the nameserver', () => {
  let server: DnsServer;

  beforeAll(async () => {
    const store = storeWith({ 'example.com': exampleRecords(), '2.0.192.in-addr.arpa': reverseRecords() });
    ({ server } = await startTestServer(store, { hosts: (await hasIpv6Loopback()) ? ['127.0.0.1', '::1'] : ['127.0.0.1'] }));
  });
  afterAll(async () => {
    await server?.close();
  });

  const expectRow = (row: Row, got: DigResult) => {
    expect(got.status, got.output).toBe(row.status);
    expect(got.flags.includes('aa'), got.output).toBe(row.aa);
    expect(got.flags).toContain('qr');
    expect(got.flags).not.toContain('ra');
    expect(sorted(got.answer), got.output).toEqual(sorted(row.answer ?? []));
    expect(sorted(got.authority), got.output).toEqual(sorted(row.authority ?? []));
    expect(sorted(got.additional), got.output).toEqual(sorted(row.additional ?? []));
  };

  for (const tool of ['dig', 'kdig'] as const) {
    for (const transport of ['udp', 'tcp'] as const) {
      describe(`${tool} over ${transport.toUpperCase()}`, () => {
        // kdig sends the query name in lower case: the case-echo rows are dig's alone.
        it.for(table.filter((row) => tool === 'dig' || !row.digOnly))('$title ($name $type)', async (row, ctx) => {
          const path = requireTool(tool, ctx);
          const got = await digQuery(path, server.port, row.name, row.type, transport === 'tcp' ? ['+tcp'] : []);
          expectRow(row, got);
        });
      });
    }
  }

  it('answers over IPv6 as over IPv4', async (ctx) => {
    if (!(await hasIpv6Loopback())) ctx.skip('no IPv6 loopback');
    for (const tool of ['dig', 'kdig'] as const) {
      const got = await digQuery(requireTool(tool, ctx), server.port, 'www.example.com', 'A', [], '::1');
      expect(got.status, got.output).toBe('NOERROR');
      expect(got.answer).toEqual([WWW_A]);
    }
  });

  describe('truncation (RFC 2181 §9, RFC 1035 §4.2.1)', () => {
    // big.example.com holds 40 A records: 669 octets, over 512, under 1232.
    for (const tool of ['dig', 'kdig'] as const) {
      it(`${tool}: without EDNS the UDP answer is truncated and empty (+ignore)`, async (ctx) => {
        const got = await digQuery(requireTool(tool, ctx), server.port, 'big.example.com', 'A', ['+noedns', '+ignore']);
        expect(got.status).toBe('NOERROR');
        expect(got.flags).toContain('tc');
        expect(got.answer).toEqual([]);
      });

      it(`${tool}: by default retries over TCP and gets all 40 records`, async (ctx) => {
        const got = await digQuery(requireTool(tool, ctx), server.port, 'big.example.com', 'A', ['+noedns']);
        expect(got.output).toMatch(/[Tt]runcated.*(retrying in TCP mode|retrying over TCP)/);
        expect(got.transport).toBe('TCP');
        expect(got.flags).not.toContain('tc');
        expect(got.answer).toHaveLength(40);
      });

      it(`${tool}: with EDNS (1232) the same answer fits in UDP`, async (ctx) => {
        const got = await digQuery(requireTool(tool, ctx), server.port, 'big.example.com', 'A', ['+edns=0', '+bufsize=1232', '+ignore']);
        expect(got.flags).not.toContain('tc');
        expect(got.answer).toHaveLength(40);
      });
    }

    it('dig: a client offering 4096 still gets at most 1232 octets over UDP', async (ctx) => {
      const got = await digQuery(requireTool('dig', ctx), server.port, 'long.example.com', 'TXT', ['+bufsize=4096', '+ignore']);
      // 1000 octets of TXT plus the rest fits 1232; the response's OPT advertises our 1232.
      expect(got.flags).not.toContain('tc');
      expect(got.ednsUdp).toBe(1232);
    });
  });

  describe('EDNS (RFC 6891)', () => {
    for (const tool of ['dig', 'kdig'] as const) {
      it(`${tool}: an EDNS query gets an OPT record advertising 1232`, async (ctx) => {
        const got = await digQuery(requireTool(tool, ctx), server.port, 'www.example.com', 'A', ['+edns=0']);
        expect(got.ednsUdp, got.output).toBe(1232);
      });

      it(`${tool}: EDNS version 1 is answered BADVERS`, async (ctx) => {
        const got = await digQuery(
          requireTool(tool, ctx),
          server.port,
          'www.example.com',
          'A',
          tool === 'dig' ? ['+edns=1', '+noednsnegotiation'] : ['+edns=1'],
        );
        expect(got.status, got.output).toBe('BADVERS');
        expect(got.answer).toEqual([]);
      });

      it(`${tool}: +nsid is ignored without error`, async (ctx) => {
        const got = await digQuery(requireTool(tool, ctx), server.port, 'www.example.com', 'A', ['+nsid']);
        expect(got.status, got.output).toBe('NOERROR');
        expect(got.answer).toEqual([WWW_A]);
        expect(got.output).not.toMatch(/NSID:/);
      });
    }

    it('without EDNS there is no OPT record in the response', async (ctx) => {
      const got = await digQuery(requireTool('dig', ctx), server.port, 'www.example.com', 'A', ['+noedns']);
      expect(got.ednsUdp).toBeNull();
      expect(got.answer).toEqual([WWW_A]);
    });
  });

  it('counts queries, responses by rcode and cache hits', () => {
    const stats = server.stats();
    expect(stats.queries.udp).toBeGreaterThan(0);
    expect(stats.queries.tcp).toBeGreaterThan(0);
    expect(stats.responses.NOERROR).toBeGreaterThan(0);
    expect(stats.responses.NXDOMAIN).toBeGreaterThan(0);
    expect(stats.responses.REFUSED).toBeGreaterThan(0);
    expect(stats.cache.hits).toBeGreaterThan(0);
    expect(stats.errors).toBe(0);
  });
});
