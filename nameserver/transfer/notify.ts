// Sending NOTIFY (RFC 1996) to secondaries when a zone has a new serial: over UDP, retried with a
// doubling timeout until a NOERROR response comes back (RFC 1996 §3.6: "periodically resent …
// until a response is received"), signed with TSIG when a key is configured. Never throws: the
// outcome per target is returned and logged, and a secondary that missed it still catches up by
// its SOA refresh timer.
import { randomInt } from 'node:crypto';
import { exchangeUdp } from '../client/dnsQuery.js';
import { CLASS, OPCODE, RCODE, TYPE } from '../types.js';
import { MessageWriter } from '../wire/messageWriter.js';
import { parseMessage } from '../wire/parseMessage.js';
import { signMessage, verifyTsig, type TsigKey } from '../wire/tsig.js';
import type { ZoneSnapshot } from '../zone/snapshot.js';
import type { NameserverLogger } from '../server/logger.js';

export interface NotifyTarget {
  host: string;
  port: number;
}

export interface NotifyOptions {
  /** Tries per target. Default 5. */
  attempts?: number;
  /** Wait for the first try's response; doubled on each later try. Default 1000 ms. */
  initialTimeoutMs?: number;
}

export interface NotifyResult extends NotifyTarget {
  acknowledged: boolean;
  attempts: number;
  /** The rcode of the last response, null when none came. */
  rcode: number | null;
}

/** The NOTIFY message (RFC 1996 §3.7): AA set, the zone's SOA question, the new SOA as answer. */
function notifyMessage(id: number, origin: string, soa: { ttl: number; rdata: Buffer } | null): Buffer {
  const w = new MessageWriter(512, { id, opcode: OPCODE.NOTIFY, aa: true, rcode: RCODE.NOERROR });
  w.addQuestion({ name: origin, qtype: TYPE.SOA, qclass: CLASS.IN });
  if (soa) w.addRecord('answer', { name: origin, type: TYPE.SOA, ttl: soa.ttl, rdata: soa.rdata });
  return w.finish();
}

interface Attempt {
  rcode: number | null;
  /** Why a response was not believed. */
  problem?: string;
}

/**
 * Sends NOTIFY for `origin` at `serial` to one target until it acknowledges (NOERROR) or the tries
 * run out. `zone`, when it is the version at `serial`, supplies the SOA for the answer section.
 */
export async function notifyTarget(params: {
  origin: string;
  serial: number;
  zone: ZoneSnapshot | undefined;
  target: NotifyTarget;
  key: TsigKey | null;
  logger: NameserverLogger;
  options?: NotifyOptions;
  signal: AbortSignal;
  now?: () => Date;
}): Promise<NotifyResult> {
  const { origin, serial, zone, target, key, logger, signal } = params;
  const attempts = params.options?.attempts ?? 5;
  const initial = params.options?.initialTimeoutMs ?? 1000;
  const now = params.now ?? (() => new Date());
  const soa = zone && zone.serial === serial ? { ttl: zone.soa.ttl, rdata: zone.soa.rdatas[0]! } : null;
  const log = { zone: origin, serial, target: `${target.host}:${target.port}` };
  let lastRcode: number | null = null;
  let tries = 0;
  for (let i = 0; i < attempts && !signal.aborted; i++) {
    tries++;
    const timeout = initial * 2 ** i;
    const started = Date.now();
    let outcome: Attempt;
    try {
      outcome = await notifyOnce(origin, soa, target, key, timeout, signal, now);
    } catch (err) {
      logger.debug({ ...log, err, attempt: tries }, 'NOTIFY not answered: no response in time, a closed port, or not sent');
      outcome = { rcode: null };
    }
    lastRcode = outcome.rcode ?? lastRcode;
    if (outcome.rcode === RCODE.NOERROR) {
      logger.info({ ...log, attempts: tries }, 'NOTIFY acknowledged');
      return { ...target, acknowledged: true, attempts: tries, rcode: RCODE.NOERROR };
    }
    if (outcome.problem) logger.warn({ ...log, attempt: tries, problem: outcome.problem }, 'NOTIFY response not believed');
    else logger.debug({ ...log, attempt: tries, rcode: outcome.rcode }, 'NOTIFY not acknowledged; will retry');
    // An error response comes back at once: still back off before the next try.
    const left = timeout - (Date.now() - started);
    if (left > 0 && i + 1 < attempts) await sleep(left, signal);
  }
  if (signal.aborted) logger.debug({ ...log, attempts: tries }, 'NOTIFY given up: a newer serial is being sent, or the server stops');
  else logger.warn({ ...log, attempts: tries, rcode: lastRcode }, 'NOTIFY not acknowledged; the secondary will catch up at its refresh');
  return { ...target, acknowledged: false, attempts: tries, rcode: lastRcode };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * One try: a fresh socket (and ID), the first matching response; rejects when the time runs out,
 * the port is closed, or `signal` aborts.
 */
function notifyOnce(
  origin: string,
  soa: { ttl: number; rdata: Buffer } | null,
  target: NotifyTarget,
  key: TsigKey | null,
  timeoutMs: number,
  signal: AbortSignal,
  now: () => Date,
): Promise<Attempt> {
  const id = randomInt(0, 0x10000);
  let message = notifyMessage(id, origin, soa);
  let requestMac: Buffer | null = null;
  if (key) {
    const signed = signMessage(message, key, { now: now() });
    message = signed.message;
    requestMac = signed.mac;
  }
  return exchangeUdp<Attempt>(
    target,
    message,
    timeoutMs,
    (datagram) => {
      const reply = parseMessage(datagram);
      // RFC 1996 §4.7: the response repeats the ID, opcode and question; anything else is noise.
      if (!reply?.qr || reply.id !== id || reply.opcode !== OPCODE.NOTIFY) return undefined;
      const question = reply.questions[0];
      if (reply.questions.length > 0 && (!question || question.name.toLowerCase() !== origin || question.type !== TYPE.SOA)) return undefined;
      if (key && requestMac) {
        // RFC 8945 §5.3: a response to a signed request is only believed when it is signed too.
        const check = reply.tsig ? verifyTsig(datagram, reply.tsig, new Map([[key.name, key]]), now(), { requestMac }) : null;
        if (!check?.ok)
          return { rcode: null, problem: reply.tsig ? `response TSIG does not verify (rcode ${reply.rcode})` : `unsigned response (rcode ${reply.rcode})` };
      }
      return { rcode: reply.rcode };
    },
    signal,
  );
}
