// The codec against DNS software we did not write: queries sent by BIND's dig and Knot's kdig are
// read by parseQuery, our responses are read by them, and TSIG works both ways — signed queries
// verified here, signed responses (single and a chained AXFR stream) verified there. Each check
// that could pass vacuously has a negative control showing the tool does notice a bad signature.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { CLASS, OPCODE, RCODE, TYPE, type Answer } from '../../../nameserver/types.js';
import { MessageWriter } from '../../../nameserver/wire/messageWriter.js';
import { parseMessage } from '../../../nameserver/wire/parseMessage.js';
import { parseQuery, type ParsedQuery, type Query } from '../../../nameserver/wire/query.js';
import { encodeRdata } from '../../../nameserver/wire/rdata.js';
import { encodeError, encodeResponse } from '../../../nameserver/wire/response.js';
import {
  appendTsigError,
  signBadTime,
  signMessage,
  TSIG_ALGORITHMS,
  tsigRecordSize,
  verifyTsig,
  type TsigAlgorithm,
  type TsigKey,
  type TsigVerification,
} from '../../../nameserver/wire/tsig.js';
import { requireTool } from '../../helpers/dnsTools.js';

const run = promisify(execFile);

type Transport = 'udp' | 'tcp';
type Handler = (message: Buffer, transport: Transport) => Buffer[];

interface TestServer {
  port: number;
  close: () => Promise<void>;
}

/** UDP and TCP (length-prefixed, RFC 1035 §4.2.2) on one free port of 127.0.0.1. */
async function startServer(handle: Handler): Promise<TestServer> {
  for (let attempt = 0; ; attempt++) {
    const udp = dgram.createSocket('udp4');
    udp.on('message', (msg, peer) => {
      for (const reply of handle(msg, 'udp')) udp.send(reply, peer.port, peer.address);
    });
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const port = udp.address().port;
    const tcp = net.createServer((socket) => {
      let pending = Buffer.alloc(0);
      socket.on('error', () => {});
      socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          const msg = pending.subarray(2, 2 + pending.readUInt16BE(0));
          pending = pending.subarray(2 + msg.length);
          for (const reply of handle(msg, 'tcp')) {
            const length = Buffer.alloc(2);
            length.writeUInt16BE(reply.length);
            socket.write(Buffer.concat([length, reply]));
          }
        }
      });
    });
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) {
      return {
        port,
        close: () => new Promise<void>((resolve) => udp.close(() => tcp.close(() => resolve()))),
      };
    }
    udp.close();
    if (attempt > 10) throw new Error('no port free for both UDP and TCP');
  }
}

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(handle: Handler): Promise<number> {
  const server = await startServer(handle);
  servers.push(server);
  return server.port;
}

/** Runs dig or kdig against 127.0.0.1:port (one try, short timeout); stdout and stderr together. */
async function ask(ctx: TestContext, tool: 'dig' | 'kdig', port: number, args: string[]): Promise<string> {
  const path = requireTool(tool, ctx);
  const retry = tool === 'dig' ? ['+tries=1', '+time=3'] : ['+retry=0', '+time=3'];
  try {
    const { stdout, stderr } = await run(path, [`@127.0.0.1`, '-p', String(port), ...retry, ...args], { timeout: 15_000 });
    return `${stdout}${stderr}`;
  } catch (e) {
    const failed = e as { stdout?: string; stderr?: string };
    return `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
}

const SOA = encodeRdata('SOA', {
  mname: 'ns1.example.com',
  rname: 'hostmaster.example.com',
  serial: 2024010101,
  refresh: 3600,
  retry: 600,
  expire: 604800,
  minimum: 300,
});

/** A minimal authoritative answer: the question name has one A record. */
function answerFor(query: Query): Answer {
  return {
    rcode: RCODE.NOERROR,
    aa: true,
    answer:
      query.question.qtype === TYPE.A ? [{ name: query.question.name, type: TYPE.A, ttl: 300, rdatas: [encodeRdata('A', { address: '192.0.2.1' })] }] : [],
    authority: query.question.qtype === TYPE.A ? [] : [{ name: 'example.com', type: TYPE.SOA, ttl: 300, rdatas: [SOA] }],
    additional: [],
  };
}

/** Answers as a server would, recording every request it parsed. */
function recordingHandler(seen: ParsedQuery[]): Handler {
  return (msg, transport) => {
    const parsed = parseQuery(msg);
    seen.push(parsed);
    if (parsed.kind === 'drop') return [];
    if (parsed.kind === 'error') return [encodeError(parsed, parsed.rcode)];
    const q = parsed.query;
    if (q.edns && q.edns.version > 0) return [encodeError(q, RCODE.BADVERS)]; // RFC 6891 §6.1.3
    return [encodeResponse(q, answerFor(q), { maxSize: transport === 'tcp' ? 65535 : 1232, tcp: transport === 'tcp' })];
  };
}

function onlyQuery(seen: ParsedQuery[]): Query {
  expect(seen).toHaveLength(1);
  const first = seen[0]!;
  if (first.kind !== 'query') throw new Error(`expected a query, got ${JSON.stringify(first)}`);
  return first.query;
}

/** The MAC length of a signed reply's TSIG (-1 without one). */
function parseQueryTsigMacLength(reply: Buffer): number {
  return parseMessage(reply)?.tsig?.mac.length ?? -1;
}

/** Option codes in an EDNS options field. */
function optionCodes(options: Buffer): number[] {
  const codes: number[] = [];
  for (let pos = 0; pos + 4 <= options.length; pos += 4 + options.readUInt16BE(pos + 2)) codes.push(options.readUInt16BE(pos));
  return codes;
}

describe('parseQuery reads what dig and kdig send', () => {
  it('dig defaults: RD, EDNS 1232 with a COOKIE option (code 10), the name in the case typed', async (ctx) => {
    const seen: ParsedQuery[] = [];
    const port = await serve(recordingHandler(seen));
    const out = await ask(ctx, 'dig', port, ['WwW.Example.COM', 'A']);
    const q = onlyQuery(seen);
    expect(q).toMatchObject({
      opcode: OPCODE.QUERY,
      rd: true,
      cd: false,
      tsig: null,
      ednsError: null,
      question: { name: 'www.example.com', qtype: TYPE.A, qclass: CLASS.IN },
    });
    expect(q.question.nameWire.toString('latin1')).toBe('\x03WwW\x07Example\x03COM\x00');
    expect(q.edns).toMatchObject({ udpSize: 1232, version: 0, dnssecOk: false });
    expect(optionCodes(q.edns!.options)).toContain(10);
    expect(out).toMatch(/status: NOERROR/);
    expect(out).toMatch(/WwW\.Example\.COM\.\s+300\s+IN\s+A\s+192\.0\.2\.1/);
  });

  it('dig +dnssec +cd +norec +bufsize=4096; +noedns', async (ctx) => {
    const seen: ParsedQuery[] = [];
    const port = await serve(recordingHandler(seen));
    await ask(ctx, 'dig', port, ['+dnssec', '+cd', '+norec', '+bufsize=4096', 'example.com', 'DNSKEY']);
    expect(onlyQuery(seen)).toMatchObject({ rd: false, cd: true, edns: { udpSize: 4096, dnssecOk: true }, question: { qtype: TYPE.DNSKEY } });
    seen.length = 0;
    await ask(ctx, 'dig', port, ['+noedns', 'example.com', 'MX']);
    expect(onlyQuery(seen)).toMatchObject({ edns: null, question: { qtype: TYPE.MX } });
  });

  it('dig class CH, IXFR over UDP with the SOA serial in authority, NOTIFY opcode', async (ctx) => {
    const seen: ParsedQuery[] = [];
    const port = await serve(recordingHandler(seen));
    await ask(ctx, 'dig', port, ['-c', 'CH', '-t', 'TXT', 'version.bind']);
    expect(onlyQuery(seen).question).toMatchObject({ name: 'version.bind', qtype: TYPE.TXT, qclass: CLASS.CH });
    seen.length = 0;
    await ask(ctx, 'dig', port, ['+notcp', 'example.com', 'ixfr=2023123199']);
    // dig goes on to TCP when the UDP reply is not a transfer; the first query is the UDP one.
    expect(seen[0]).toMatchObject({ kind: 'query', query: { ixfrSerial: 2023123199, question: { name: 'example.com', qtype: TYPE.IXFR } } });
    seen.length = 0;
    await ask(ctx, 'dig', port, ['+opcode=notify', '+norec', 'example.com', 'SOA']);
    expect(onlyQuery(seen)).toMatchObject({ opcode: OPCODE.NOTIFY, notifySerial: null, question: { qtype: TYPE.SOA } });
  });

  it('kdig +nsid +dnssec: EDNS options kept raw (NSID is code 3)', async (ctx) => {
    const seen: ParsedQuery[] = [];
    const port = await serve(recordingHandler(seen));
    const out = await ask(ctx, 'kdig', port, ['+nsid', '+dnssec', 'Example.com', 'SOA']);
    const q = onlyQuery(seen);
    expect(q.edns).toMatchObject({ dnssecOk: true, version: 0 });
    expect(optionCodes(q.edns!.options)).toContain(3);
    expect(out).toMatch(/status: NOERROR/);
    expect(out).toMatch(/hostmaster\.example\.com\. 2024010101 3600 600 604800 300/);
  });

  it('answers NOTIMP to UPDATE and BADVERS to EDNS version 1, which dig reads', async (ctx) => {
    const seen: ParsedQuery[] = [];
    const port = await serve(recordingHandler(seen));
    const notimp = await ask(ctx, 'dig', port, ['+opcode=update', 'example.com', 'SOA']);
    expect(seen[0]).toMatchObject({ kind: 'error', rcode: RCODE.NOTIMP });
    expect(notimp).toMatch(/opcode: UPDATE, status: NOTIMP/);
    expect(notimp).toMatch(/;example\.com\.\s+IN\s+SOA/); // the question echoed
    seen.length = 0;
    const badvers = await ask(ctx, 'dig', port, ['+edns=1', '+noednsnegotiation', 'example.com', 'A']);
    expect(seen[0]).toMatchObject({ kind: 'query', query: { edns: { version: 1 } } });
    expect(badvers).toMatch(/status: BADVERS/);
    expect(badvers).toMatch(/EDNS: version: 0/);
  });

  it('a truncated UDP answer sends dig to TCP, where the whole answer fits', async (ctx) => {
    const seen: Transport[] = [];
    const rdatas = Array.from({ length: 150 }, (_, i) => encodeRdata('A', { address: `10.1.${i >> 8}.${i & 0xff}` }));
    const port = await serve((msg, transport) => {
      const parsed = parseQuery(msg);
      seen.push(transport);
      if (parsed.kind !== 'query') return [];
      const answer = { rcode: 0, aa: true, answer: [{ name: parsed.query.question.name, type: TYPE.A, ttl: 60, rdatas }], authority: [], additional: [] };
      return [encodeResponse(parsed.query, answer, { maxSize: transport === 'tcp' ? 65535 : 1232, tcp: transport === 'tcp' })];
    });
    const out = await ask(ctx, 'dig', port, ['+noall', '+answer', 'many.example.com', 'A']);
    expect(out.match(/\tA\t10\.1\./g)).toHaveLength(150);
    expect(seen).toEqual(['udp', 'tcp']);
  });
});

describe('TSIG with dig and kdig (RFC 8945)', () => {
  const SECRET = Buffer.from('0123456789abcdef0123456789abcdef');
  const keyArg = (name = 'xfr.key', secret: Buffer = SECRET, algorithm: string = 'hmac-sha256') => ['-y', `${algorithm}:${name}:${secret.toString('base64')}`];
  const XFR_KEY: TsigKey = { name: 'xfr.key', algorithm: 'hmac-sha256', secret: SECRET, owner: null };
  /** xfr.key, and one key per algorithm named after it ("hmac-md5.key", …), each with its own secret. */
  const keys = new Map<string, TsigKey>([
    [XFR_KEY.name, XFR_KEY],
    ...TSIG_ALGORITHMS.map((algorithm, i): [string, TsigKey] => [
      `${algorithm}.key`,
      { name: `${algorithm}.key`, algorithm, secret: Buffer.alloc(32 + i, `secret of ${algorithm}`), owner: null },
    ]),
  ]);
  const keyOf = (algorithm: TsigAlgorithm) => keys.get(`${algorithm}.key`)!;

  interface TsigServerOptions {
    /** Key the server believes in (to provoke BADSIG). */
    serverKeys?: Map<string, TsigKey>;
    /** Secret used to sign responses (to show the client notices a wrong one). */
    signingSecret?: Buffer;
    /** Server clock offset in seconds (to provoke BADTIME). */
    skew?: number;
    /** Sign every message of a stream with full variables instead of chaining (a negative control). */
    breakChain?: boolean;
  }

  /** A TSIG-aware server: verifies, answers errors as RFC 8945 §5 says, signs responses. */
  function tsigHandler(results: TsigVerification[], options: TsigServerOptions = {}): Handler {
    return (msg, transport) => {
      const parsed = parseQuery(msg);
      if (parsed.kind !== 'query' || !parsed.query.tsig) return [];
      const q = parsed.query;
      const tsig = q.tsig!;
      const now = new Date(Date.now() + (options.skew ?? 0) * 1000);
      const check = verifyTsig(msg, tsig, options.serverKeys ?? keys, now);
      results.push(check);
      if (!check.ok) {
        if (check.error === RCODE.FORMERR) return [encodeError(q, RCODE.FORMERR)];
        const refusal = encodeError(q, RCODE.NOTAUTH);
        if (check.error === RCODE.BADTIME)
          return [signBadTime(refusal, { ...check.key!, secret: options.signingSecret ?? check.key!.secret }, tsig, now).message];
        return [appendTsigError(refusal, tsig, check.error)];
      }
      const key = { ...check.key, secret: options.signingSecret ?? check.key.secret };
      if (q.question.qtype === TYPE.AXFR) return axfrStream(q, key, options.breakChain ?? false);
      const reserve = tsigRecordSize(key);
      const response = encodeResponse(q, answerFor(q), { maxSize: transport === 'tcp' ? 65535 : 1232, tcp: transport === 'tcp', reserve });
      return [signMessage(response, key, { requestMac: tsig.mac, now }).message];
    };
  }

  /** An AXFR of 402 records in messages of at most 8 KiB, each signed, chained (RFC 8945 §5.3.1). */
  function axfrStream(q: Query, key: TsigKey, breakChain: boolean): Buffer[] {
    const records = [
      { name: 'example.com', type: TYPE.SOA, ttl: 300, rdata: SOA },
      ...Array.from({ length: 400 }, (_, i) => ({
        name: `host${i}.example.com`,
        type: TYPE.TXT,
        ttl: 300,
        rdata: encodeRdata('TXT', { text: `record ${i} ${'p'.repeat(80)}` }),
      })),
      { name: 'example.com', type: TYPE.SOA, ttl: 300, rdata: SOA },
    ];
    const header = { id: q.id, opcode: OPCODE.QUERY, qr: true, aa: true, rcode: RCODE.NOERROR };
    const size = 8192 - tsigRecordSize(key);
    const unsigned: Buffer[] = [];
    let writer = new MessageWriter(size, header);
    writer.addQuestion(q.question);
    for (const record of records) {
      if (writer.addRecord('answer', record)) continue;
      unsigned.push(writer.finish());
      writer = new MessageWriter(size, header);
      writer.addRecord('answer', record);
    }
    unsigned.push(writer.finish());
    let previousMac = q.tsig!.mac;
    return unsigned.map((message, i) => {
      const now = new Date();
      const signed =
        i === 0 || breakChain ? signMessage(message, key, { requestMac: q.tsig!.mac, now }) : signMessage(message, key, { previousMac, timersOnly: true, now });
      previousMac = signed.mac;
      return signed.message;
    });
  }

  it('dig: a signed query is verified here, the signed response there', async (ctx) => {
    const results: TsigVerification[] = [];
    const port = await serve(tsigHandler(results));
    const out = await ask(ctx, 'dig', port, [...keyArg('XFR.Key'), 'www.example.com', 'A']);
    expect(results).toEqual([{ ok: true, key: XFR_KEY }]);
    expect(out).toMatch(/status: NOERROR/);
    expect(out).toMatch(/TSIG PSEUDOSECTION/);
    expect(out).not.toMatch(/Couldn't verify|could not be validated/);
  });

  it('dig notices a response signed with the wrong secret (negative control)', async (ctx) => {
    const results: TsigVerification[] = [];
    const port = await serve(tsigHandler(results, { signingSecret: Buffer.from('some other secret') }));
    const out = await ask(ctx, 'dig', port, [...keyArg(), 'www.example.com', 'A']);
    expect(results[0]).toMatchObject({ ok: true });
    expect(out).toMatch(/tsig verify failure/);
  });

  it('a query signed with another secret is BADSIG; dig reads the unsigned NOTAUTH/BADSIG reply', async (ctx) => {
    const results: TsigVerification[] = [];
    const port = await serve(tsigHandler(results));
    const out = await ask(ctx, 'dig', port, [...keyArg('xfr.key', Buffer.from('the wrong secret for xfr.key!!!!')), 'www.example.com', 'A']);
    expect(results).toEqual([{ ok: false, error: RCODE.BADSIG }]);
    expect(out).toMatch(/status: NOTAUTH/);
    expect(out).toMatch(/TSIG\s+hmac-sha256\. \d+ 300 0 \d+ BADSIG 0/);
  });

  it('an unknown key is BADKEY', async (ctx) => {
    const results: TsigVerification[] = [];
    const port = await serve(tsigHandler(results));
    const out = await ask(ctx, 'dig', port, [...keyArg('nobody.key'), 'www.example.com', 'A']);
    expect(results).toEqual([{ ok: false, error: RCODE.BADKEY }]);
    expect(out).toMatch(/BADKEY/);
  });

  it('BADTIME: dig verifies our signed reply and reports the clock difference', async (ctx) => {
    const results: TsigVerification[] = [];
    const port = await serve(tsigHandler(results, { skew: 3600 }));
    const out = await ask(ctx, 'dig', port, [...keyArg(), 'www.example.com', 'A']);
    expect(results).toMatchObject([{ ok: false, error: RCODE.BADTIME }]);
    expect(out).toMatch(/clocks are unsynchronized/);
    expect(out).toMatch(/BADTIME 6 /);
    // Negative control: the same reply signed with a wrong secret fails verification instead.
    const port2 = await serve(tsigHandler([], { skew: 3600, signingSecret: Buffer.from('wrong') }));
    expect(await ask(ctx, 'dig', port2, [...keyArg(), 'www.example.com', 'A'])).toMatch(/tsig verify failure/);
  });

  it('kdig verifies the signed response too, and notices a wrong one', async (ctx) => {
    const port = await serve(tsigHandler([]));
    const out = await ask(ctx, 'kdig', port, [...keyArg(), 'www.example.com', 'A']);
    expect(out).toMatch(/status: NOERROR/);
    expect(out).not.toMatch(/failed to verify|WARNING/);
    const badPort = await serve(tsigHandler([], { signingSecret: Buffer.from('some other secret') }));
    expect(await ask(ctx, 'kdig', badPort, [...keyArg(), 'www.example.com', 'A'])).toMatch(/failed to verify TSIG/);
  });

  // Each algorithm both ways: the tool's MAC verified by verifyTsig, ours by the tool — with a
  // negative control per algorithm (a response signed with another secret), so a tool that did
  // not check could not pass.
  for (const algorithm of TSIG_ALGORITHMS) {
    for (const tool of ['dig', 'kdig'] as const) {
      it(`${tool} -y ${algorithm}: its MAC verifies here, ours there, over UDP and TCP`, async (ctx) => {
        const key = keyOf(algorithm);
        const results: TsigVerification[] = [];
        const port = await serve(tsigHandler(results));
        for (const transport of ['+notcp', '+tcp']) {
          const out = await ask(ctx, tool, port, [transport, ...keyArg(key.name, key.secret, algorithm), 'www.example.com', 'A']);
          expect(out).toMatch(/status: NOERROR/);
          expect(out).toMatch(tool === 'dig' ? /TSIG PSEUDOSECTION/ : /TSIG PSEUDOSECTION|;; TSIG/);
          expect(out).not.toMatch(/tsig verify failure|Couldn't verify|failed to verify/);
        }
        expect(results).toEqual([
          { ok: true, key },
          { ok: true, key },
        ]);
        const bad = await serve(tsigHandler([], { signingSecret: Buffer.from('not the secret of this key') }));
        expect(await ask(ctx, tool, bad, [...keyArg(key.name, key.secret, algorithm), 'www.example.com', 'A'])).toMatch(
          tool === 'dig' ? /tsig verify failure/ : /failed to verify TSIG/,
        );
      });
    }
  }

  it('dig -y hmac-sha256-128 (a truncated MAC, RFC 8945 §5.2.2.1): accepted, answered with a 16-octet MAC dig verifies', async (ctx) => {
    const key = keyOf('hmac-sha256');
    const results: TsigVerification[] = [];
    const port = await serve(tsigHandler(results));
    const seen: number[] = [];
    const spy = await serve((msg, transport) => {
      const replies = tsigHandler(results)(msg, transport);
      for (const r of replies) seen.push(parseQueryTsigMacLength(r));
      return replies;
    });
    for (const [algorithm, octets] of [
      ['hmac-sha256-128', 16],
      ['hmac-sha512-256', 32],
      ['hmac-sha1-80', 10],
      ['hmac-md5-80', 10],
    ] as const) {
      const base = algorithm.replace(/-\d+$/, '') as TsigAlgorithm;
      const k = keyOf(base);
      results.length = 0;
      seen.length = 0;
      const out = await ask(ctx, 'dig', spy, [...keyArg(k.name, k.secret, algorithm), 'www.example.com', 'A']);
      expect(results, algorithm).toEqual([{ ok: true, key: k }]);
      expect(seen, algorithm).toEqual([octets]);
      expect(out, algorithm).toMatch(/status: NOERROR/);
      expect(out, algorithm).not.toMatch(/tsig verify failure|Couldn't verify/);
    }
    // Below the RFC's minimum (half of SHA-256's 32 octets): FORMERR, unsigned.
    results.length = 0;
    const short = await ask(ctx, 'dig', port, [...keyArg(key.name, key.secret, 'hmac-sha256-120'), 'www.example.com', 'A']);
    expect(results).toEqual([{ ok: false, error: RCODE.FORMERR }]);
    expect(short).toMatch(/FORMERR/);
  });

  it('AXFR over TCP: every message of the stream verifies in dig (chained MACs, RFC 8945 §5.3.1)', async (ctx) => {
    const results: TsigVerification[] = [];
    const port = await serve(tsigHandler(results));
    const out = await ask(ctx, 'dig', port, [...keyArg(), 'example.com', 'AXFR']);
    expect(results).toEqual([expect.objectContaining({ ok: true })]);
    const size = /XFR size: (\d+) records \(messages (\d+),/.exec(out);
    expect(size?.[1]).toBe('402');
    expect(Number(size?.[2])).toBeGreaterThanOrEqual(4);
    expect(out).not.toMatch(/Couldn't verify|tsig verify failure/);
    // Negative control: MACs that do not chain are refused message by message.
    const brokenPort = await serve(tsigHandler([], { breakChain: true }));
    expect(await ask(ctx, 'dig', brokenPort, [...keyArg(), 'example.com', 'AXFR'])).toMatch(/tsig verify failure/);
  });
});
