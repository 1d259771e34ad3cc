// A helper process of the nameserver (udpProcesses.ts): keeps a copy of the main process's zones,
// fed over the IPC channel, and answers UDP queries on sockets of its own on the main process's
// port (SO_REUSEPORT) or, where there is none, on the sockets the main process hands over.
// UPDATEs it passes to the main process (when told to: `forwardUpdates`), which alone applies
// them, and sends back the main process's answer. It ends with its parent.
import type dgram from 'node:dgram';
import { silentLogger } from './server/logger.js';
import { QueryHandler } from './server/queryHandler.js';
import { copyStats, emptyStats } from './server/serverStats.js';
import { serveUdp } from './server/udpLoop.js';
import { bindUdpEndpoint, chooseUdpTransport } from './server/udpEndpoint.js';
import { dgramTransport, type Datagram, type UdpTransport } from './server/udpTransport.js';
import { OPCODE } from './types.js';
import { type FromHelper, fromWire, keyFromWire, type ToHelper } from './udpProcesses.js';
import { buildZoneSnapshot } from './zone/snapshot.js';
import { ZoneStore } from './zone/store.js';

/** UPDATEs waiting for the main process's answer beyond this are dropped (the client retries). */
const MAX_PENDING_UPDATES = 1000;

const store = new ZoneStore();
let handler: QueryHandler | null = null;
let forwardUpdates = false;
let updateRequests = 0;
const pendingUpdates = new Map<number, { transport: UdpTransport; address: string; port: number }>();
const tell = (m: FromHelper) => process.send?.(m);

/** QR clear and opcode UPDATE (RFC 1035 §4.1.1: octet 2 is QR, OPCODE, AA, TC, RD). */
const isUpdate = (message: Buffer) => message.length >= 12 && (message[2]! & 0xf8) === OPCODE.UPDATE << 3;

process.on('message', (message: ToHelper, handle?: unknown) => {
  switch (message.kind) {
    case 'config':
      handler = new QueryHandler({
        store,
        transferAllow: message.transferAllow,
        tsigKeys: message.tsigKeys.map(keyFromWire),
        logger: silentLogger,
        rateLimit: message.rateLimit,
      });
      forwardUpdates = message.forwardUpdates;
      return;
    case 'tenantKeys':
      handler?.setTenantTsigKeys(message.keys.map(keyFromWire));
      return;
    case 'zoneAccess':
      handler?.setZoneAccess(message.lists);
      return;
    case 'updateAnswer': {
      const client = pendingUpdates.get(message.request);
      pendingUpdates.delete(message.request);
      if (client && message.message !== null)
        client.transport.send([{ message: Buffer.from(message.message, 'base64'), address: client.address, port: client.port }]);
      return;
    }
    case 'set': {
      const snapshot = buildZoneSnapshot(message.origin, message.records.map(fromWire));
      store.set(snapshot);
      tell({ kind: 'serving', origin: message.origin, serial: snapshot.serial });
      return;
    }
    case 'diff':
      try {
        const next = store.applyDiff(message.origin, {
          fromSerial: message.fromSerial,
          toSerial: message.toSerial,
          removed: message.removed.map(fromWire),
          added: message.added.map(fromWire),
        });
        tell({ kind: 'serving', origin: message.origin, serial: next.serial });
      } catch {
        tell({ kind: 'resync', origin: message.origin });
      }
      return;
    case 'remove':
      store.remove(message.origin);
      tell({ kind: 'serving', origin: message.origin, serial: null });
      return;
    case 'stats': {
      const stats = handler ? copyStats(handler.stats) : emptyStats();
      stats.cache.entries = handler?.cacheSize ?? 0;
      tell({ kind: 'stats', request: message.request, stats });
      return;
    }
    case 'socket':
      answerOn(dgramTransport(handle as dgram.Socket, silentLogger));
      tell({ kind: 'listening' });
      return;
    case 'udp':
      void openOwnSockets(message).then(
        () => tell({ kind: 'listening' }),
        (err: Error) => tell({ kind: 'listening', error: err.message }),
      );
      return;
  }
});
async function openOwnSockets(message: Extract<ToHelper, { kind: 'udp' }>): Promise<void> {
  const choice = chooseUdpTransport(message.transport, message.addonPath);
  const onUnsent = (count: number) => {
    if (handler) handler.stats.udpUnsent += count;
  };
  for (const host of message.hosts) {
    const endpoint = await bindUdpEndpoint(choice, host, message.port, { exclusive: false, logger: silentLogger, onUnsent });
    answerOn(endpoint.transport);
  }
}

function answerOn(transport: UdpTransport): void {
  serveUdp(
    transport,
    (query: Datagram) => {
      if (forwardUpdates && isUpdate(query.message)) {
        if (pendingUpdates.size >= MAX_PENDING_UPDATES) return null;
        const request = ++updateRequests;
        if (handler) handler.stats.updates.forwarded++;
        pendingUpdates.set(request, { transport, address: query.address, port: query.port });
        tell({ kind: 'update', request, message: query.message.toString('base64'), remoteAddress: query.address });
        return null;
      }
      return handler?.handleQuery(query.message, { transport: 'udp', remoteAddress: query.address }) ?? null;
    },
    handler?.udpRateLimit ?? null,
  );
}

process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
tell({ kind: 'ready' });
