// What each zone write's answer waits for under `Prefer: wait=N`, and how it is read again after
// the wait (docs/api-conventions.md "Waiting until live"): the resource as it is now, through the
// presenter that wrote the answer, with what only the write knew (its warnings, an import's
// skipped lines) carried over from the answer.
import type { z } from 'zod';
import type { Warning } from '../../../domain/changeSets/planChangeSet.js';
import { getChangeSet } from '../../../services/changeSets.js';
import { getRecord, getZone } from '../../../services/zoneReads.js';
import { type HandlerInput, liveWaitOn } from '../../routing/route.js';
import {
  type changeSetWrittenSchema,
  presentChangeSet,
  presentWrittenRecord,
  presentZone,
  type recordWrittenSchema,
  storedEtag,
  type zoneSchema,
} from './presenter.js';

type ChangeSetWritten = z.output<typeof changeSetWrittenSchema>;

/** The change set a write stored, as it is now, with the write's warnings. */
async function changeSetNow(input: HandlerInput<unknown, unknown, unknown>, written: ChangeSetWritten) {
  const zone = await getZone(input.context, input.services.config, written.zone);
  return { ...presentChangeSet(await getChangeSet(input.context, zone, written.id)), warnings: written.warnings as Warning[] };
}

/** Record create and change: the record's change set; the record as it is now. */
export const recordLiveWait = liveWaitOn<z.output<typeof recordWrittenSchema>>({
  changeSets: (written) => [written.publication.changeset_id],
  reread: async (input, written) => {
    const zone = await getZone(input.context, input.services.config, (input.params as { zone: string }).zone);
    const record = await getRecord(input.context, zone, written.id);
    return { body: presentWrittenRecord(record, written.warnings as Warning[]), etag: storedEtag(record) };
  },
});

/** Writes answered with their change set (change sets, templates, record deletion); a dry run has none. */
export const changeSetLiveWait = liveWaitOn<ChangeSetWritten | { dry_run: true }>({
  changeSets: (written) => ('id' in written ? [written.id] : []),
  reread: async (input, written) => ({ body: await changeSetNow(input, written as ChangeSetWritten) }),
});

/** Zone creation and settings: the zone's newest change set; the zone as it is now (`activating` → `active`). */
export const zoneLiveWait = liveWaitOn<z.output<typeof zoneSchema> & { warnings?: unknown[] }>({
  changeSets: (written) => (written.publication.changeset_id ? [written.publication.changeset_id] : []),
  reread: async (input, written) => {
    const zone = await getZone(input.context, input.services.config, written.name);
    const body = presentZone(zone, input.services.config);
    return { body: written.warnings ? { ...body, warnings: written.warnings } : body, etag: storedEtag(zone) };
  },
});

/** An applied import: its change set, with the lines it skipped; a dry run has none. */
export const importLiveWait = liveWaitOn<{ changeset?: ChangeSetWritten; skipped: unknown[]; unchanged: number }>({
  changeSets: (written) => (written.changeset ? [written.changeset.id] : []),
  reread: async (input, written) => ({
    body: { changeset: await changeSetNow(input, written.changeset!), skipped: written.skipped, unchanged: written.unchanged },
  }),
});
