// SRV (RFC 2782): priority, weight, port and target of a service at _service._proto.name.
import { z } from 'zod';
import { hostnameField, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type SrvData = { priority: number; weight: number; port: number; target: string };

// RFC 6335 §5.1: service names are letters, digits and hyphens, with at least one letter and
// no hyphen at either end or twice in a row.
// Deployed names exceed the 15 of RFC 6335 (Microsoft's _sipfederationtls is 16), so any label
// length DNS allows is accepted.
const SERVICE_LABEL = /^_(?=[a-z0-9-]{1,62}$)(?=[a-z0-9-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*$/;
// RFC 2782 names _tcp and _udp; _sctp (RFC 4960) and _tls (RFC 6733 §5.2, SIP/Diameter) are in use.
const SRV_PROTOCOL_LABELS: readonly string[] = ['_tcp', '_udp', '_tls', '_sctp'];

function srvOwnerProblem(owner: string): string | null {
  const [service, proto] = owner.split('.');
  if (owner === '@' || !service || !proto || !SERVICE_LABEL.test(service) || !SRV_PROTOCOL_LABELS.includes(proto)) {
    return `An SRV record's name starts with "_service._proto", for example "_sip._tcp" or "_imaps._tcp.mail" (RFC 2782), with the protocol one of ${SRV_PROTOCOL_LABELS.join(', ')}; "${owner}" does not.`;
  }
  return null;
}

export const srvRule: RecordTypePolicy = {
  type: 'SRV',
  data: z.strictObject({
    priority: uintField('priority', 65535),
    weight: uintField('weight', 65535),
    port: uintField('port', 65535),
    // RFC 2782: a target of "." means the service is decidedly not available at this domain.
    target: hostnameField('target', { allowRoot: true }),
  }),
  ownerProblem: srvOwnerProblem,
  zoneKinds: ['forward'],
};
