// Build step 2: the records the service renders for this version, from each record source that
// applies to the zone (recordSources.ts: the apex SOA/NS, the DNSSEC key sets, a provider reverse
// zone's default PTRs, …), compared with those the served version rendered. They are stored nowhere else, so that the
// nameserver serves (and the signer signs) exactly what the build rendered.
import type { ZoneRecord } from '../../../nameserver/types.js';
import type { RenderContext, RenderedInputs } from '../../versionRecords/recordSource.js';
import { RECORD_SOURCES } from './recordSources.js';
import type { VersionDraft } from './versionDraft.js';

/** The version's rendered records, in the list's order: each source that reads nothing, each other one with inputs (readRenderedInputs). */
export function synthesizeSystemRecords(ctx: RenderContext, before: ZoneRecord[], inputs: RenderedInputs = {}): VersionDraft['system'] {
  const after = RECORD_SOURCES.flatMap((source) =>
    !source.read ? source.render(ctx, undefined) : inputs[source.name] === undefined ? [] : source.render(ctx, inputs[source.name]),
  );
  return { before, after, nameservers: [...ctx.nameservers] };
}
