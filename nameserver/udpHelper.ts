// A helper process of the nameserver (udpProcesses.ts): keeps a copy of the main process's zones,
// fed over the IPC channel, and answers UDP queries on the sockets the main process hands over.
// It ends with its parent.
import type dgram from 'node:dgram';
import { silentLogger } from './server/logger.js';
import { QueryHandler } from './server/queryHandler.js';
import { copyStats, emptyStats } from './server/serverStats.js';
import { type FromHelper, fromWire, type ToHelper } from './udpProcesses.js';
import { buildZoneSnapshot } from './zone/snapshot.js';
import { ZoneStore } from './zone/store.js';

const store = new ZoneStore();
let handler: QueryHandler | null = null;
const tell = (m: FromHelper) => process.send?.(m);

process.on('message', (message: ToHelper, handle?: unknown) => {
  switch (message.kind) {
    case 'config':
      handler = new QueryHandler({
        store,
        transferAllow: message.transferAllow,
        tsigKeys: message.tsigKeys.map((k) => ({ name: k.name, secret: Buffer.from(k.secret, 'base64') })),
        logger: silentLogger,
      });
      return;
    case 'set': {
      const snapshot = buildZoneSnapshot(message.origin, message.records.map(fromWire));
      store.set(snapshot);
      tell({ kind: 'serving', origin: message.origin, serial: snapshot.serial });
      return;
    }
    case 'diff':
      try {
        const next = store.applyDiff(message.origin, { fromSerial: message.fromSerial, toSerial: message.toSerial, removed: message.removed.map(fromWire), added: message.added.map(fromWire) });
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
    case 'socket': {
      const socket = handle as dgram.Socket;
      socket.on('error', () => {});
      socket.on('message', (query, remote) => {
        const reply = handler?.handleQuery(query, { transport: 'udp', remoteAddress: remote.address }) ?? null;
        if (reply !== null && Buffer.isBuffer(reply)) socket.send(reply, remote.port, remote.address);
      });
      return;
    }
  }
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
tell({ kind: 'ready' });
