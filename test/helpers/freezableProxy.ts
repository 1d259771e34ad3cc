// A TCP proxy between the service and PostgreSQL that can go silent: frozen, it forwards no byte
// in either direction (it holds them) and accepts new connections without connecting them
// onwards, but closes nothing — what a hung server or a network partition looks like from the
// client's side. Thawed, it delivers what it held and carries on.
import net from 'node:net';

export interface FreezableProxy {
  /** The upstream URL with host and port replaced by the proxy's. */
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

interface Link {
  client: net.Socket;
  server: net.Socket | null;
  /** Bytes held while frozen, per direction. */
  held: { toServer: Buffer[]; toClient: Buffer[] };
}

export async function startFreezableProxy(upstreamUrl: string): Promise<FreezableProxy> {
  const upstream = new URL(upstreamUrl);
  const target = { host: upstream.hostname, port: Number(upstream.port || 5432) };
  let frozen = false;
  const links = new Set<Link>();

  const connectOnwards = (link: Link) => {
    const s = net.connect(target);
    link.server = s;
    s.on('data', (chunk) => (frozen ? link.held.toClient.push(chunk) : link.client.write(chunk)));
    s.on('error', () => link.client.destroy());
    s.on('close', () => link.client.destroy());
    for (const chunk of link.held.toServer.splice(0)) s.write(chunk);
  };
  const flush = (link: Link) => {
    if (!link.server) connectOnwards(link);
    for (const chunk of link.held.toServer.splice(0)) link.server!.write(chunk);
    for (const chunk of link.held.toClient.splice(0)) link.client.write(chunk);
  };

  const server = net.createServer((client) => {
    const link: Link = { client, server: null, held: { toServer: [], toClient: [] } };
    links.add(link);
    client.on('data', (chunk) => (frozen || !link.server ? link.held.toServer.push(chunk) : link.server.write(chunk)));
    client.on('error', () => link.server?.destroy());
    client.on('close', () => {
      link.server?.destroy();
      links.delete(link);
    });
    if (!frozen) connectOnwards(link);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(upstreamUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const link of links) flush(link);
    },
    close: async () => {
      for (const link of links) {
        link.client.destroy();
        link.server?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
