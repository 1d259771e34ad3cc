// Who may read a zone with an access list (a catalog zone, docs/catalog-zones.md "Who may read a
// catalog"): real sockets, with clients on 127.0.0.1 (on the list) and 127.0.0.2 (not on it; on
// Linux the whole of 127/8 is local), over UDP, TCP and AXFR; with the list's key, a transfer
// must be signed with it. transferAllow names no local address here, so the list alone decides.
// The list grants its clients the catalog's members too (a set's secondaries transfer the zones
// the catalog lists, with the set's key): example.com is listed, other.example is not.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsServer } from '../../nameserver/server.js';
import { RCODE, TYPE } from '../../nameserver/types.js';
import { parseMessage, type Message } from '../../nameserver/wire/parseMessage.js';
import { signMessage, type TsigKey } from '../../nameserver/wire/tsig.js';
import { MirroredZoneStore } from '../../nameserver/udpProcesses.js';
import { buildZoneSnapshot } from '../../nameserver/zone/snapshot.js';
import type { ZoneStore } from '../../nameserver/zone/store.js';
import { exampleRecords, type RecordSpec, soaData, startTestServer, storeWith, zoneRecord } from '../helpers/fixtureZones.js';
import { buildQuery, TcpDnsClient } from '../helpers/tcpClient.js';

const CATALOG = 'edge.catalog.invalid';
const setKey: TsigKey = { name: 'edge-xfr', algorithm: 'hmac-sha256', secret: randomBytes(32), owner: 'tsk_edge' };
const OTHER = 'other.example';
const otherZone = (): RecordSpec[] => [
  [OTHER, 'SOA', 3600, soaData(OTHER, 1)],
  [OTHER, 'NS', 3600, { nameserver: 'ns1.example.com' }],
];
const otherKey: TsigKey = { name: 'someone-else', algorithm: 'hmac-sha256', secret: randomBytes(32), owner: 'tsk_other' };

function catalogRecords(serial = 7): RecordSpec[] {
  return [
    [CATALOG, 'SOA', 0, soaData(CATALOG, serial)],
    [CATALOG, 'NS', 0, { nameserver: 'invalid' }],
    [`version.${CATALOG}`, 'TXT', 0, { text: '2' }],
    [`aaaaaaaaaaaaaaaa.zones.${CATALOG}`, 'PTR', 0, { target: 'example.com' }],
  ];
}

async function udpAsk(port: number, message: Buffer, from: string): Promise<Message> {
  const socket = dgram.createSocket('udp4');
  try {
    await new Promise<void>((resolve) => socket.bind({ address: from, port: 0 }, resolve));
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no UDP answer')), 3000);
      socket.once('message', (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      socket.send(message, port, '127.0.0.1', (err) => err && reject(err));
    });
    return parseMessage(reply)!;
  } finally {
    socket.close();
  }
}

/** Every message of a TCP exchange (a transfer stream ends with the SOA or a single error). */
async function tcpAsk(port: number, message: Buffer, from: string): Promise<Message[]> {
  const client = await TcpDnsClient.connect(port, '127.0.0.1', from);
  try {
    client.send(message);
    const first = parseMessage((await client.waitFor(1))[0]!)!;
    if (first.rcode !== RCODE.NOERROR || first.questions[0]?.type !== TYPE.AXFR) return [first];
    // An AXFR: until the closing SOA.
    for (let n = 2; ; n++) {
      const all = client.messages.map((m) => parseMessage(m)!);
      const soas = all.flatMap((m) => m.answer).filter((r) => r.type === TYPE.SOA).length;
      if (soas >= 2) return all;
      await client.waitFor(n);
    }
  } finally {
    client.socket.destroy();
  }
}

const soaQuery = (id = 1) => buildQuery(id, CATALOG, TYPE.SOA);
const axfr = (id = 2) => buildQuery(id, CATALOG, TYPE.AXFR);
const signed = (query: Buffer, key: TsigKey) => signMessage(query, key, { now: new Date() }).message;

describe('a zone with an access list, without a key', () => {
  let server: DnsServer;
  let store: ZoneStore;

  beforeAll(async () => {
    store = storeWith({ 'example.com': exampleRecords(), [OTHER]: otherZone(), [CATALOG]: catalogRecords() });
    ({ server } = await startTestServer(store, {
      transferAllow: ['192.0.2.0/24'],
      zoneAccess: [{ origin: CATALOG, addresses: ['127.0.0.1'], transferKeyOwner: null, grantsMembers: true }],
    }));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers the SOA over UDP and TCP to the address on the list, REFUSED to another', async () => {
    const allowed = await udpAsk(server.port, soaQuery(), '127.0.0.1');
    expect(allowed).toMatchObject({ rcode: RCODE.NOERROR, aa: true });
    expect(allowed.answer.map((r) => r.type)).toEqual([TYPE.SOA]);
    const [tcpAllowed] = await tcpAsk(server.port, soaQuery(), '127.0.0.1');
    expect(tcpAllowed!.answer.map((r) => r.type)).toEqual([TYPE.SOA]);

    const refused = await udpAsk(server.port, soaQuery(), '127.0.0.2');
    expect(refused).toMatchObject({ rcode: RCODE.REFUSED, answer: [], authority: [] });
    const [tcpRefused] = await tcpAsk(server.port, soaQuery(), '127.0.0.2');
    expect(tcpRefused).toMatchObject({ rcode: RCODE.REFUSED, answer: [] });
  });

  it('refuses every name and type of the zone, and no cached answer reaches the other address', async () => {
    for (let i = 0; i < 3; i++) expect((await udpAsk(server.port, buildQuery(10 + i, `version.${CATALOG}`, TYPE.TXT), '127.0.0.1')).rcode).toBe(RCODE.NOERROR);
    const cachedBefore = server.stats().cache.entries;
    expect((await udpAsk(server.port, buildQuery(20, `version.${CATALOG}`, TYPE.TXT), '127.0.0.2')).rcode).toBe(RCODE.REFUSED);
    expect((await udpAsk(server.port, buildQuery(21, `aaaaaaaaaaaaaaaa.zones.${CATALOG}`, TYPE.PTR), '127.0.0.2')).rcode).toBe(RCODE.REFUSED);
    expect((await udpAsk(server.port, buildQuery(22, `nothing.${CATALOG}`, TYPE.A), '127.0.0.2')).rcode).toBe(RCODE.REFUSED);
    expect(server.stats().cache.entries).toBe(cachedBefore);
  });

  it('transfers (AXFR over TCP) to the address on the list only', async () => {
    const messages = await tcpAsk(server.port, axfr(), '127.0.0.1');
    const records = messages.flatMap((m) => m.answer);
    expect(records.filter((r) => r.type === TYPE.SOA)).toHaveLength(2);
    expect(records.some((r) => r.type === TYPE.PTR)).toBe(true);
    const [refused] = await tcpAsk(server.port, axfr(), '127.0.0.2');
    expect(refused).toMatchObject({ rcode: RCODE.REFUSED, answer: [] });
  });

  it('leaves other zones open to everyone; transfers a member to the catalog’s clients, the rest to transferAllow only', async () => {
    const other = await udpAsk(server.port, buildQuery(30, 'www.example.com', TYPE.A), '127.0.0.2');
    expect(other).toMatchObject({ rcode: RCODE.NOERROR, aa: true });
    const member = await tcpAsk(server.port, buildQuery(31, 'example.com', TYPE.AXFR), '127.0.0.1');
    expect(member[0]!.rcode).toBe(RCODE.NOERROR);
    expect(member.flatMap((m) => m.answer).filter((r) => r.type === TYPE.SOA)).toHaveLength(2);
    const [memberToOthers] = await tcpAsk(server.port, buildQuery(32, 'example.com', TYPE.AXFR), '127.0.0.2');
    expect(memberToOthers!.rcode).toBe(RCODE.REFUSED);
    const [notListed] = await tcpAsk(server.port, buildQuery(33, OTHER, TYPE.AXFR), '127.0.0.1');
    expect(notListed!.rcode).toBe(RCODE.REFUSED);
  });

  it('no longer transfers a member once the catalog stops listing it', async () => {
    const listed = catalogRecords(8);
    listed.push([`bbbbbbbbbbbbbbbb.zones.${CATALOG}`, 'PTR', 0, { target: OTHER }]);
    store.set(buildZoneSnapshot(CATALOG, listed.map(zoneRecord)));
    try {
      expect((await tcpAsk(server.port, buildQuery(34, OTHER, TYPE.AXFR), '127.0.0.1'))[0]!.rcode).toBe(RCODE.NOERROR);
      store.set(
        buildZoneSnapshot(
          CATALOG,
          catalogRecords(9)
            .filter((r) => r[1] !== 'PTR')
            .map(zoneRecord),
        ),
      );
      expect((await tcpAsk(server.port, buildQuery(35, 'example.com', TYPE.AXFR), '127.0.0.1'))[0]!.rcode).toBe(RCODE.REFUSED);
    } finally {
      store.set(buildZoneSnapshot(CATALOG, catalogRecords(10).map(zoneRecord)));
    }
  });

  it('follows a new list at once: the other address on it is answered, the first no longer', async () => {
    server.setZoneAccess([{ origin: CATALOG, addresses: ['127.0.0.2/32'], transferKeyOwner: null, grantsMembers: true }]);
    try {
      expect((await udpAsk(server.port, soaQuery(40), '127.0.0.2')).rcode).toBe(RCODE.NOERROR);
      expect((await udpAsk(server.port, soaQuery(41), '127.0.0.1')).rcode).toBe(RCODE.REFUSED);
    } finally {
      server.setZoneAccess([{ origin: CATALOG, addresses: ['127.0.0.1'], transferKeyOwner: null, grantsMembers: true }]);
    }
  });
});

describe('a zone with an access list and a key', () => {
  let server: DnsServer;

  beforeAll(async () => {
    const store = storeWith({ 'example.com': exampleRecords(), [OTHER]: otherZone(), [CATALOG]: catalogRecords() });
    ({ server } = await startTestServer(store, {
      transferAllow: ['192.0.2.0/24'],
      zoneAccess: [{ origin: CATALOG, addresses: ['127.0.0.1'], transferKeyOwner: setKey.owner, grantsMembers: true }],
    }));
    server.setTenantTsigKeys([setKey, otherKey]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers an unsigned SOA over UDP to the address on the list (how PowerDNS checks a catalog)', async () => {
    expect((await udpAsk(server.port, soaQuery(), '127.0.0.1')).rcode).toBe(RCODE.NOERROR);
    expect((await udpAsk(server.port, soaQuery(), '127.0.0.2')).rcode).toBe(RCODE.REFUSED);
  });

  it('refuses an unsigned AXFR and one signed with another key; serves one signed with the set’s key', async () => {
    const [unsigned] = await tcpAsk(server.port, axfr(), '127.0.0.1');
    expect(unsigned!.rcode).toBe(RCODE.REFUSED);
    const [wrongKey] = await tcpAsk(server.port, signed(axfr(3), otherKey), '127.0.0.1');
    expect(wrongKey!.rcode).toBe(RCODE.REFUSED);
    const messages = await tcpAsk(server.port, signed(axfr(4), setKey), '127.0.0.1');
    expect(messages[0]!.rcode).toBe(RCODE.NOERROR);
    expect(messages.flatMap((m) => m.answer).filter((r) => r.type === TYPE.SOA)).toHaveLength(2);
    expect(messages.every((m) => m.tsig !== null)).toBe(true);
  });

  it('transfers a member only signed with the set’s key, and a zone the catalog does not list not even so', async () => {
    const memberAxfr = (id: number) => buildQuery(id, 'example.com', TYPE.AXFR);
    expect((await tcpAsk(server.port, memberAxfr(6), '127.0.0.1'))[0]!.rcode).toBe(RCODE.REFUSED);
    expect((await tcpAsk(server.port, signed(memberAxfr(7), otherKey), '127.0.0.1'))[0]!.rcode).toBe(RCODE.REFUSED);
    const messages = await tcpAsk(server.port, signed(memberAxfr(8), setKey), '127.0.0.1');
    expect(messages[0]!.rcode).toBe(RCODE.NOERROR);
    expect(messages.flatMap((m) => m.answer).filter((r) => r.type === TYPE.SOA)).toHaveLength(2);
    expect((await tcpAsk(server.port, signed(memberAxfr(9), setKey), '127.0.0.2'))[0]!.rcode).toBe(RCODE.REFUSED);
    expect((await tcpAsk(server.port, signed(buildQuery(10, OTHER, TYPE.AXFR), setKey), '127.0.0.1'))[0]!.rcode).toBe(RCODE.REFUSED);
  });

  it('refuses a signed AXFR from an address not on the list', async () => {
    const [refused] = await tcpAsk(server.port, signed(axfr(5), setKey), '127.0.0.2');
    expect(refused!.rcode).toBe(RCODE.REFUSED);
  });
});

describe('UDP helper processes', () => {
  let server: DnsServer;
  let store: MirroredZoneStore;

  beforeAll(async () => {
    store = new MirroredZoneStore();
    store.set(buildZoneSnapshot(CATALOG, catalogRecords().map(zoneRecord)));
    const lists = [{ origin: CATALOG, addresses: ['127.0.0.1'], transferKeyOwner: null, grantsMembers: true }];
    ({ server } = await startTestServer(store as ZoneStore, { transferAllow: ['192.0.2.0/24'], zoneAccess: lists }));
    await store.startHelpers(2, server.udp, { transferAllow: ['192.0.2.0/24'], tsigKeys: [], handler: server.handler });
  }, 30_000);
  afterAll(async () => {
    await store?.stopHelpers();
    await server?.close();
  });

  /** Enough queries that, with three processes reading the socket, the helpers answer some. */
  async function rcodesFrom(from: string, id: number): Promise<Set<number>> {
    const rcodes = new Set<number>();
    for (let i = 0; i < 30; i++) rcodes.add((await udpAsk(server.port, soaQuery(id + i), from)).rcode);
    return rcodes;
  }

  it('answer and refuse as the main process does, and follow a new list', async () => {
    expect(await rcodesFrom('127.0.0.1', 100)).toEqual(new Set([RCODE.NOERROR]));
    expect(await rcodesFrom('127.0.0.2', 200)).toEqual(new Set([RCODE.REFUSED]));
    server.setZoneAccess([{ origin: CATALOG, addresses: ['127.0.0.2'], transferKeyOwner: null, grantsMembers: true }]);
    // The helpers get the list over their IPC channel: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await rcodesFrom('127.0.0.2', 300)).toEqual(new Set([RCODE.NOERROR]));
    expect(await rcodesFrom('127.0.0.1', 400)).toEqual(new Set([RCODE.REFUSED]));
  });
});
