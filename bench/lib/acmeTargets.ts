// The DNS servers an ACME DNS-01 benchmark issues against: each serves one zone on 127.0.0.1 and
// accepts RFC 2136 UPDATE signed with one TSIG key per client, each key of that client's default
// algorithm (lego HMAC-SHA1, certbot HMAC-MD5), so the clients run as users run them.
import { randomBytes } from 'node:crypto';
import { CLIENT_DEFAULT_ALGORITHM, type TsigAlgorithm } from '../../test/helpers/acme.js';
import { startKnotPrimary } from '../../test/helpers/knot.js';
import { portOutsideEphemeralRange } from '../../test/helpers/reservedPort.js';
import { benchApi, createLiveZone, liftRateLimits, startBenchService } from './benchService.js';

export type AcmeClient = keyof typeof CLIENT_DEFAULT_ALGORITHM;
export const ACME_CLIENTS = Object.keys(CLIENT_DEFAULT_ALGORITHM) as AcmeClient[];

export interface AcmeTargetKey {
  keyName: string;
  keyAlgorithm: TsigAlgorithm;
  /** Base64. */
  secret: string;
}

export interface AcmeDnsTarget {
  name: string;
  /** UDP and TCP on 127.0.0.1: UPDATE, the clients' SOA and TXT queries, pebble's validation. */
  dnsPort: number;
  zone: string;
  keys: Record<AcmeClient, AcmeTargetKey>;
  close(): Promise<void>;
}

/** A server someone else started and set up: the caller supplies its port, zone and keys. */
export function suppliedTarget(o: {
  name: string;
  dnsPort: number;
  zone: string;
  keys: Record<AcmeClient, AcmeTargetKey>;
  close?: () => Promise<void>;
}): AcmeDnsTarget {
  return { ...o, close: o.close ?? (async () => undefined) };
}

/** The master file Knot starts a benchmark's zone from: SOA, NS, the name server's and `www`'s addresses. */
export const knotZoneText = (zone: string): string =>
  `$ORIGIN ${zone}.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 60\n@ NS ns1\nns1 A 127.0.0.1\nwww A 127.0.0.1\n`;

/** The anchor: knotd as the zone's primary, its update ACL naming the two keys. */
export async function knotTarget(zone: string): Promise<AcmeDnsTarget> {
  const keys = Object.fromEntries(ACME_CLIENTS.map((c) => [c, { name: `${c}.${zone}.`, algorithm: CLIENT_DEFAULT_ALGORITHM[c], secret: randomBytes(32) }]));
  const knot = await startKnotPrimary({
    port: portOutsideEphemeralRange,
    zones: [{ origin: zone, text: knotZoneText(zone), updateKeys: Object.values(keys) }],
  });
  return suppliedTarget({
    name: 'knot',
    dnsPort: knot.port,
    zone,
    keys: Object.fromEntries(
      ACME_CLIENTS.map((c) => [c, { keyName: keys[c]!.name, keyAlgorithm: keys[c]!.algorithm, secret: keys[c]!.secret.toString('base64') }]),
    ) as Record<AcmeClient, AcmeTargetKey>,
    close: knot.close,
  });
}

/**
 * Our service as `npm start` runs it (bench/lib/benchService.ts), the zone and one TSIG key per
 * client created through the API as a customer would (issue 24: `POST /api/v1/tsig-keys
 * {name, algorithm, policy}` → `{name, algorithm, secret}`), each key limited to TXT records at
 * `_acme-challenge.*` in the zone. Until that resource exists the key creation fails with the
 * API's status, and this target with it.
 */
export async function serviceTarget(zone: string): Promise<AcmeDnsTarget> {
  const service = await startBenchService();
  try {
    await liftRateLimits(service);
    const api = benchApi(service.base, service.tokens.customers[0]);
    await createLiveZone(api, zone);
    const keys = {} as Record<AcmeClient, AcmeTargetKey>;
    for (const client of ACME_CLIENTS) {
      const policy = { zones: [zone], names: ['_acme-challenge.*'], types: ['TXT'] };
      const key = await api('POST', '/tsig-keys', { name: `${client}.${zone}`, algorithm: CLIENT_DEFAULT_ALGORITHM[client], policy });
      keys[client] = { keyName: key.name, keyAlgorithm: key.algorithm, secret: key.secret };
    }
    return suppliedTarget({ name: 'ours', dnsPort: service.dnsPort, zone, keys, close: service.stop });
  } catch (err) {
    await service.stop();
    throw err;
  }
}
