// RFC 4034 §6.1 canonical order spelled out the slow, obvious way, as tests' reference: encode the
// name with the wire codec (which decodes the presentation escapes), split the wire form into
// labels, compare octets from the rightmost label, the name that runs out first sorts first.
import { encodeName } from '../../nameserver/wire/name.js';

/** The labels of a name's lower-cased wire form, rightmost first. */
function wireLabels(name: string): Buffer[] {
  const wire = encodeName(name, true);
  const labels: Buffer[] = [];
  for (let at = 0; wire[at]! > 0; at += 1 + wire[at]!) labels.push(wire.subarray(at + 1, at + 1 + wire[at]!));
  return labels.reverse();
}

export function referenceCanonicalOrder(a: string, b: string): number {
  const la = wireLabels(a);
  const lb = wireLabels(b);
  for (let i = 0; i < Math.min(la.length, lb.length); i++) {
    const d = Buffer.compare(la[i]!, lb[i]!);
    if (d !== 0) return d;
  }
  return la.length - lb.length;
}
