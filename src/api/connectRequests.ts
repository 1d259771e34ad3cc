import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Hands CONNECT requests to the app like any other method. Node gives CONNECT (a proxy's tunnel
 * request) to the server's `connect` listeners and, without one, closes the connection without a
 * word; we are no proxy, so the app answers it as the unknown method it is (404 or 405 with
 * `Allow`, docs/api-conventions.md) and the connection is closed after that answer — the parser
 * has already let go of the socket, so it cannot carry another request.
 */
export function answerConnectRequests(server: http.Server, listener: http.RequestListener): void {
  server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    socket.on('error', () => socket.destroy());
    listener(req, res);
  });
}
