// Build step 3: signing. A build signs an update, not a zone (Knot's knot_dnssec_sign_update):
// the step receives the version's diff and answers the signature and denial records to remove
// and add. Zones are not signed yet, so it adds nothing; the DNSSEC issue fills it in.
import type { VersionDiff, VersionDraft } from './versionDraft.js';

export function signDraft(_zone: VersionDraft['zone'], _diff: VersionDiff): VersionDraft['signatures'] {
  return { removed: [], added: [] };
}
