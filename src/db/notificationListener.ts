// A dedicated PostgreSQL connection for LISTEN (the pool's connections come and go). When the
// database goes away it reconnects with back-off and tells the owner, who catches up by polling:
// notifications sent while nobody listened are lost by design of NOTIFY.
import pg from 'pg';

const CONNECT_TIMEOUT_MS = 5000;

export interface NotificationListenerOptions {
  url: string;
  channels: string[];
  onNotification(channel: string, payload: string): void;
  /** Called after every (re)connection: anything missed while away must be re-read now. */
  onConnected?(): void;
  onError?(err: unknown): void;
}

export class NotificationListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = 200;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: NotificationListenerOptions) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    // A connect to a silent server must fail (and be retried), not hang; keepalive finds a peer
    // that vanished under this otherwise quiet connection.
    const client = new pg.Client({
      connectionString: this.options.url,
      application_name: 'managed-dns-listener',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('notification', (m) => this.options.onNotification(m.channel, m.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.retryMs = 200;
    this.options.onConnected?.();
  }

  private lost(client: pg.Client, err: unknown) {
    if (this.stopped || (this.client !== null && this.client !== client)) return;
    this.client = null;
    client.removeAllListeners('end');
    client.end().catch(() => {});
    this.options.onError?.(err);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) void this.connect();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
  }

  get connected(): boolean {
    return this.client !== null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}
