// The one UDP receive loop, run by the server (server.ts) and by each helper process (udpHelper.ts)
// over their transports: every datagram received is answered now, later (an UPDATE, whose answer
// is a promise) or not at all. Answers made now pass the process's response rate limit
// (responseRateLimit.ts) on their way out: it is a UDP matter only, since over TCP the client's
// address cannot be forged.
import type { Reply } from './queryHandler.js';
import type { ResponseRateLimit } from './responseRateLimit.js';
import type { Datagram, UdpTransport } from './udpTransport.js';

/**
 * What answers one datagram: a QueryHandler's reply, or null when the datagram is dropped or
 * answered by other means (a helper forwarding an UPDATE). Over UDP only single messages are
 * sent: a transfer's reply needs TCP and is never answered here.
 */
export type UdpAnswerer = (query: Datagram) => Reply;

export function serveUdp(transport: UdpTransport, answer: UdpAnswerer, rateLimit: ResponseRateLimit | null = null): void {
  transport.recv((batch) => {
    const answers: Datagram[] = [];
    for (const query of batch) {
      const reply = answer(query);
      // An UPDATE's answer (a promise) is signed and goes to a client that proved its key: not limited.
      if (reply instanceof Promise) void reply.then((message) => transport.send([{ message, address: query.address, port: query.port }]));
      else if (Buffer.isBuffer(reply)) {
        const message = rateLimit ? rateLimit.apply(reply, query.address) : reply;
        if (message) answers.push({ message, address: query.address, port: query.port });
      }
    }
    if (answers.length > 0) transport.send(answers);
  });
}
