// The DNS client side of the dynamic-update benchmarks: RFC 2136 UPDATE messages signed with TSIG
// by the codec's own signMessage (no second TSIG here), sent over one TCP connection per client,
// their signed answers checked with verifyTsig; and unsigned UDP queries, to see when the
// nameserver answers what an update added.
import dgram from 'node:dgram';
import { TcpDnsClient, buildQuery } from '../../test/helpers/tcpClient.js';
import { CLASS, OPCODE, RCODE, TYPE } from '../../nameserver/types.js';
import { MessageWriter } from '../../nameserver/wire/messageWriter.js';
import { encodeName, normalizeName } from '../../nameserver/wire/name.js';
import { type Message, parseMessage } from '../../nameserver/wire/parseMessage.js';
import { encodeRdata } from '../../nameserver/wire/rdata.js';
import { signMessage, type TsigKey, verifyTsig } from '../../nameserver/wire/tsig.js';

export interface UpdateKey {
  /** As the server knows it (a trailing dot is dropped). */
  name: string;
  algorithm: TsigKey['algorithm'];
  /** Base64, as `POST /tsig-keys` and Knot's configuration give it. */
  secret: string;
}

export const tsigKey = (k: UpdateKey): TsigKey => ({
  name: normalizeName(k.name),
  algorithm: k.algorithm,
  secret: Buffer.from(k.secret, 'base64'),
  owner: null,
});

/** The TXT RDATA of one string: what the nameserver's answer holds once the update is served. */
export const txtRdata = (text: string): Buffer => encodeRdata('TXT', { text });

/** An UPDATE of `zone` adding one TXT record (RFC 2136 §2.5.1), signed with `key`; the request MAC for checking the answer. */
export function txtAddUpdate(id: number, zone: string, owner: string, text: string, key: TsigKey, ttl = 60): { message: Buffer; mac: Buffer } {
  const w = new MessageWriter(1024, { id, opcode: OPCODE.UPDATE, rcode: 0 });
  w.addQuestion({ name: zone, nameWire: encodeName(zone), qtype: TYPE.SOA, qclass: CLASS.IN });
  w.addRecord('authority', { name: owner, type: TYPE.TXT, ttl, rdata: txtRdata(text) });
  return signMessage(w.finish(), key, { now: new Date() });
}

/**
 * One client's TCP connection to a server, one exchange at a time (RFC 7766 allows pipelining;
 * an ACME client or nsupdate sends one UPDATE and waits). Reconnects when the server closed it.
 */
export class TcpExchanger {
  private client: TcpDnsClient | null = null;
  private received = 0;

  constructor(
    private readonly port: number,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Sends `message`, returns the answer; throws on a timeout or a connection closed before it. */
  async exchange(message: Buffer): Promise<Buffer> {
    if (!this.client || this.client.closed) {
      this.client?.close();
      this.client = await TcpDnsClient.connect(this.port);
      this.received = 0;
    }
    const client = this.client;
    client.send(message);
    const answers = await client.waitFor(this.received + 1, this.timeoutMs);
    if (answers.length <= this.received) throw new Error('connection closed before the answer');
    return answers[this.received++]!;
  }

  close(): void {
    this.client?.close();
    this.client = null;
  }
}

const RCODE_NAMES = new Map<number, string>(Object.entries(RCODE).map(([name, code]) => [code, name]));
const rcodeName = (code: number) => RCODE_NAMES.get(code) ?? `rcode ${code}`;

/**
 * What an UPDATE's answer says: `NOERROR` only when it is signed with the key over the request's
 * MAC (a NOERROR unsigned, or with a MAC that does not verify, acknowledges nothing); otherwise
 * the rcode's name, with the TSIG error of an unsigned refusal (`NOTAUTH/BADKEY`, RFC 8945 §5.3.2).
 */
export function updateOutcome(answer: Buffer, key: TsigKey, requestMac: Buffer): string {
  const parsed = parseMessage(answer);
  if (!parsed || parsed.opcode !== OPCODE.UPDATE || !parsed.qr) return 'not an UPDATE answer';
  if (!parsed.tsig) return `${rcodeName(parsed.rcode)}, unsigned`;
  if (parsed.tsig.error) return `${rcodeName(parsed.rcode)}/${rcodeName(parsed.tsig.error)}`;
  const check = verifyTsig(answer, parsed.tsig, new Map([[key.name, key]]), new Date(), { requestMac });
  if (!check.ok) return `${rcodeName(parsed.rcode)}, TSIG not verified (${rcodeName(check.error)})`;
  return rcodeName(parsed.rcode);
}

/** A bound UDP socket of one client, for its queries one at a time (answers matched by id). */
export async function udpSocket(): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

/** One unsigned query (no RD) over UDP on `socket` to 127.0.0.1:`port`; its parsed answer. */
export function udpQuery(socket: dgram.Socket, port: number, name: string, type: number, id: number, timeoutMs = 1000): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off('message', onMessage);
      reject(new Error(`DNS timeout: ${name}`));
    }, timeoutMs);
    const onMessage = (msg: Buffer) => {
      if (msg.length < 2 || msg.readUInt16BE(0) !== id) return;
      clearTimeout(timer);
      socket.off('message', onMessage);
      const parsed = parseMessage(msg);
      if (parsed) resolve(parsed);
      else reject(new Error(`malformed answer for ${name}`));
    };
    socket.on('message', onMessage);
    socket.send(buildQuery(id, name, type), port, '127.0.0.1');
  });
}

/** The RDATA of the answer's records of `type` at the question's name. */
export const answerRdata = (m: Message, type: number): Buffer[] => m.answer.filter((r) => r.type === type).map((r) => r.rdata);
