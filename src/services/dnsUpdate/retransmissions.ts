// An UPDATE sent again over UDP while its first copy is still being applied is answered with the
// first copy's answer, not applied a second time. nsupdate sends again after 3 s without an
// answer (`-u`), and an answer waits until the change is live: under load or with secondaries to
// wait for, the copy would otherwise run once the first committed — where a prerequisite now
// fails (`prereq nxdomain` before an add answers YXDOMAIN) — and its quick answer could reach the
// client before the first one's. A copy is the same message from the same address: same zone,
// key and records. Per process; every UPDATE is applied in the nameserver's main process.
import { createHash } from 'node:crypto';
import type { DnsUpdateRequest } from './dnsUpdate.js';

/** What identifies a copy: the client's address and everything the message asks. */
function copyKey(request: DnsUpdateRequest): string {
  const hash = createHash('sha256').update(`${request.remoteAddress}\u0000${request.zone}\u0000${request.key?.name ?? ''}`);
  for (const section of [request.prerequisites, request.updates]) {
    hash.update(`\u0000${section.length}`);
    for (const rr of section) hash.update(`\u0000${rr.name}\u0000${rr.type}\u0000${rr.klass}\u0000${rr.ttl}\u0000`).update(rr.rdata);
  }
  return hash.digest('base64');
}

export class UpdatesInFlight {
  private readonly running = new Map<string, Promise<unknown>>();

  /** `apply(request)`, or the answer of the copy of it in flight over UDP (`copy`: this is the later one). */
  async run<T>(request: DnsUpdateRequest, apply: () => Promise<T>): Promise<{ value: T; copy: boolean }> {
    if (request.transport !== 'udp') return { value: await apply(), copy: false };
    const key = copyKey(request);
    const first = this.running.get(key) as Promise<T> | undefined;
    if (first) return { value: await first, copy: true };
    const result = apply().finally(() => this.running.delete(key));
    this.running.set(key, result);
    return { value: await result, copy: false };
  }

  /** Messages being applied now (for tests). */
  get size(): number {
    return this.running.size;
  }
}
