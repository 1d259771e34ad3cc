// Counters kept by the server (plain numbers, no metrics library): what `server.stats()` returns
// and what the service may export as metrics.

const RCODE_NAMES: Readonly<Record<number, string>> = {
  0: 'NOERROR',
  1: 'FORMERR',
  2: 'SERVFAIL',
  3: 'NXDOMAIN',
  4: 'NOTIMP',
  5: 'REFUSED',
  6: 'YXDOMAIN',
  7: 'YXRRSET',
  8: 'NXRRSET',
  9: 'NOTAUTH',
  10: 'NOTZONE',
  16: 'BADVERS',
};

export interface ServerStats {
  /** Messages received, by transport (every TCP frame counts once). */
  queries: { udp: number; tcp: number };
  /** Responses sent (first message of a transfer), by rcode name ("RCODE<n>" for others). */
  responses: Record<string, number>;
  /** Messages given no answer at all (too short, QR set). */
  dropped: number;
  /** UDP answers the kernel did not take (the batched transport: a full send buffer, an unusable address). */
  udpUnsent: number;
  cache: { hits: number; misses: number; entries: number };
  /** Exceptions caught while handling a message (answered SERVFAIL). */
  errors: number;
  transfers: { axfr: number; ixfr: number; refused: number };
  /**
   * TCP connections: open now, accepted, closed idle (idleMs), closed because a message did not
   * arrive whole in time (ioTimeoutMs), closed to make room for a new one (limits reached).
   */
  tcp: { open: number; accepted: number; idleClosed: number; slowClosed: number; evicted: number };
  notify: { received: number; sent: number; acknowledged: number; failed: number };
  /**
   * RFC 2136 UPDATE: messages handled here (those UDP helpers forwarded count in the main
   * process), handed to the UpdateHandler, and (in a helper) forwarded to the main process.
   */
  updates: { received: number; handed: number; forwarded: number };
  /**
   * Response rate limiting (responseRateLimit.ts, UDP only): responses made but not sent, and
   * those sent truncated instead (also counted in `responses`, by the rcode they were made with).
   */
  rateLimit: { dropped: number; slipped: number };
}

export function emptyStats(): ServerStats {
  return {
    queries: { udp: 0, tcp: 0 },
    responses: {},
    dropped: 0,
    udpUnsent: 0,
    cache: { hits: 0, misses: 0, entries: 0 },
    errors: 0,
    transfers: { axfr: 0, ixfr: 0, refused: 0 },
    tcp: { open: 0, accepted: 0, idleClosed: 0, slowClosed: 0, evicted: 0 },
    notify: { received: 0, sent: 0, acknowledged: 0, failed: 0 },
    updates: { received: 0, handed: 0, forwarded: 0 },
    rateLimit: { dropped: 0, slipped: 0 },
  };
}

export function countResponse(stats: ServerStats, rcode: number): void {
  const name = RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
  stats.responses[name] = (stats.responses[name] ?? 0) + 1;
}

/** A deep copy, so callers cannot change the live counters. */
export function copyStats(stats: ServerStats): ServerStats {
  return structuredClone(stats);
}

/**
 * The counters of several processes added up (DNS_UDP_PROCESSES: the main process and its UDP
 * helpers, nameserver/udpProcesses.ts): every field is a count, `tcp.open` and `cache.entries`
 * included (each process has its own connections and cache).
 */
export function sumStats(list: readonly ServerStats[]): ServerStats {
  const total = emptyStats();
  for (const stats of list) addInto(total as unknown as Counters, stats as unknown as Counters);
  return total;
}

interface Counters {
  [field: string]: number | Counters;
}

function addInto(total: Counters, add: Counters): void {
  for (const [field, value] of Object.entries(add)) {
    if (typeof value === 'number') total[field] = ((total[field] as number | undefined) ?? 0) + value;
    else addInto((total[field] ??= {}) as Counters, value);
  }
}
