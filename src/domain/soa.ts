// The SOA and apex NS set the service manages for every zone (system records). They are not
// stored: every publication build renders them from the zone's settings, the version's serial and
// the NAMESERVERS configuration (docs/publication.md), and the API shows the same rendering.
import { serialAdd, serialGreater } from '../../nameserver/wire/serial.js';

/** SOA timers (RFC 1912 §2.2 ranges); MINIMUM is the negative-caching TTL (RFC 2308 §4). */
const SOA_TIMERS = { refresh: 10800, retry: 3600, expire: 1_209_600, minimum: 300 } as const;

/** hostmaster@example.com → hostmaster.example.com (dots in the local part escaped, RFC 1035 §8). */
function emailToRname(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at).replace(/\./g, '\\.');
  return `${local}.${email.slice(at + 1).toLowerCase()}`;
}

/**
 * First serial of a zone: YYYYMMDD01 of the creation day (RFC 1912 §2.2 convention). The zone shows
 * it until its first version is published, which takes it.
 */
function initialSerial(now: Date): number {
  const ymd = now.toISOString().slice(0, 10).replace(/-/g, '');
  return Number(`${ymd}01`);
}

/**
 * First serial of a zone created at `createdAt`: initialSerial, or above `floor` (the serial the
 * name's previous zone last had; migration 20261128060000) when that is not below it.
 */
export function firstSerial(createdAt: Date, floor: number | string | null): number {
  const initial = initialSerial(createdAt);
  return floor === null || serialGreater(initial, Number(floor)) ? initial : serialAdd(Number(floor), 1);
}

export type SoaData = {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
};

export function soaData(nameservers: string[], soaEmail: string, serial: number): SoaData {
  return { mname: nameservers[0]!, rname: emailToRname(soaEmail), serial, ...SOA_TIMERS };
}

/** The system records of a zone's apex, zone-relative ('@'): the SOA first, then the NS set. */
export type SystemRecord = { name: '@'; type: 'SOA'; data: SoaData } | { name: '@'; type: 'NS'; data: { nameserver: string } };

export function systemRecords(nameservers: readonly string[], soaEmail: string, serial: number): SystemRecord[] {
  return [
    { name: '@', type: 'SOA', data: soaData([...nameservers], soaEmail, serial) },
    ...nameservers.map((nameserver): SystemRecord => ({ name: '@', type: 'NS', data: { nameserver } })),
  ];
}

export const systemPresentation = (r: SystemRecord) => (r.type === 'SOA' ? soaPresentation(r.data) : `${r.data.nameserver}.`);

export const soaPresentation = (d: SoaData) => `${d.mname}. ${d.rname}. ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`;

/**
 * The serial of the next published version: today's YYYYMMDD00 when that is ahead of the
 * current one, otherwise the current one plus one (mod 2^32). Every version increases the serial
 * (RFC 1982), readers still see the date of the first change of a day while a zone changes fewer
 * than 100 times a day, and a busy zone simply runs ahead of the calendar.
 */
export function nextSerial(current: number, now: Date): number {
  const today = Number(`${now.toISOString().slice(0, 10).replace(/-/g, '')}00`);
  return serialGreater(today, current) ? today : serialAdd(current, 1);
}
