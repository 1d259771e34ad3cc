// How UDP datagrams reach the receive loop (udpLoop.ts) and leave it. The loop works in batches so
// that a transport moving many datagrams per system call (recvmmsg/sendmmsg, which Node 20's dgram
// lacks) can take the place of node:dgram without touching the loop; node:dgram delivers one
// datagram per event and sends one per call, so its batches hold one.
import type dgram from 'node:dgram';
import type { NameserverLogger } from './logger.js';

/** A datagram received (a query) or to send (an answer), with the client's address. */
export interface Datagram {
  message: Buffer;
  address: string;
  port: number;
}

export interface UdpTransport {
  /** Calls `onBatch` with each batch of datagrams received, until the socket closes. */
  recv(onBatch: (batch: readonly Datagram[]) => void): void;
  /**
   * Sends answers. A failure (an address the socket cannot use, a socket already closed as the
   * server stops) is logged, never thrown: one bad client must not stop the others' answers.
   */
  send(batch: readonly Datagram[]): void;
}

/** A bound node:dgram socket as a transport; its errors are logged, never fatal. */
export function dgramTransport(socket: dgram.Socket, logger: NameserverLogger): UdpTransport {
  socket.on('error', (err) => logger.debug({ err }, 'UDP socket error'));
  return {
    recv(onBatch) {
      socket.on('message', (message, remote) => onBatch([{ message, address: remote.address, port: remote.port }]));
    },
    send(batch) {
      for (const answer of batch) {
        try {
          socket.send(answer.message, answer.port, answer.address);
        } catch (err) {
          logger.debug({ err, remote: answer.address }, 'UDP reply failed');
        }
      }
    },
  };
}
