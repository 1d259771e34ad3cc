// A port to name before anything listens on it (a secondary the service must know at start).
// The kernel's free port (listen on 0) comes from the ephemeral range, where every outgoing
// connection of the run also takes its local port: in the seconds before the secondary binds it,
// a PostgreSQL or HTTP connection of a neighbouring test can take the same number (knotd then
// exits: "address already in use"). Below that range only listeners take ports.
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';

const ephemeralLow = (): number => {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
};

const tcpFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

const udpFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', () => resolve(false));
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A port below the ephemeral range, free for TCP and UDP on 127.0.0.1 right now. */
export async function portOutsideEphemeralRange(): Promise<number> {
  const high = ephemeralLow();
  const low = Math.max(1024, high - 12_000);
  for (let i = 0; i < 200; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if ((await tcpFree(port)) && (await udpFree(port))) return port;
  }
  throw new Error('no free port below the ephemeral range');
}
