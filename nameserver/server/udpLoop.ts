// The one UDP receive loop, run by the server (server.ts) and by each helper process (udpHelper.ts)
// over their transports: every datagram received is answered now, later (an UPDATE, whose answer
// is a promise) or not at all.
import type { Reply } from './queryHandler.js';
import type { Datagram, UdpTransport } from './udpTransport.js';

/**
 * What answers one datagram: a QueryHandler's reply, or null when the datagram is dropped or
 * answered by other means (a helper forwarding an UPDATE). Over UDP only single messages are
 * sent: a transfer's reply needs TCP and is never answered here.
 */
export type UdpAnswerer = (query: Datagram) => Reply;

export function serveUdp(transport: UdpTransport, answer: UdpAnswerer): void {
  transport.recv((batch) => {
    const answers: Datagram[] = [];
    for (const query of batch) {
      const reply = answer(query);
      if (reply instanceof Promise) void reply.then((message) => transport.send([{ message, address: query.address, port: query.port }]));
      else if (Buffer.isBuffer(reply)) answers.push({ message: reply, address: query.address, port: query.port });
    }
    if (answers.length > 0) transport.send(answers);
  });
}
