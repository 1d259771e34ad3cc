import { z } from 'zod';
import { getChangeSet, listChangeSets, retryChangeSet, submitChangeSet } from '../../../services/changeSets.js';
import { getZone } from '../../../services/zoneReads.js';
import { listEnvelope, pagedList } from '../../pagination.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { pageQuery } from '../common.js';
import { changeSetCreated, changeSetSchema, changeSetWrittenSchema, dryRunSchema, presentChangeSet, presentDryRun } from './presenter.js';
import { changeSetLiveWait } from './liveWaits.js';
import { changeSetIdParam, changeSetRequestSchema, stateFilter, zoneParam } from './schemas.js';

const TAG = 'Change sets';
const zoneParams = z.strictObject({ zone: zoneParam });
const changeSetParams = z.strictObject({ zone: zoneParam, changeset: changeSetIdParam });

export const changeSetRoutes = [
  defineRoute({
    method: 'get',
    path: '/zones/{zone}/changesets',
    operationId: 'listChangeSets',
    summary: 'List the change sets of a zone, newest first',
    description:
      'Change sets that are `live` are kept 90 days, and the zone’s newest always; `pending`, `pushed` and `failed` ones until they are `live` (docs/operations.md "Retention").',
    tag: TAG,
    scopes: ['records:read'],
    params: zoneParams,
    query: z.strictObject({
      state: stateFilter.optional(),
      since: z.iso
        .datetime({ offset: true })
        .transform((s) => new Date(s))
        .optional()
        .describe('Created at or after.'),
      ...pageQuery,
    }),
    responses: { 200: { description: 'A page of change sets (without results)', schema: listEnvelope(changeSetSchema), headers: ['Link'] } },
    handler: async (input) => {
      const zone = await getZone(input.context, input.services.config, input.params.zone);
      return pagedList(
        input,
        `changesets:${zone.id}`,
        (after, limit) => listChangeSets(input.context, zone, { state: input.query.state, since: input.query.since }, after, limit),
        (c) => presentChangeSet(c, false),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/changesets',
    operationId: 'createChangeSet',
    summary: 'Apply an atomic change set',
    description:
      'All or nothing, up to 1000 items, validated against the zone state after all items. Any invalid item: 422 with `index` and `pointer` per error. `if_match`/`zone_if_match` mismatch: 412, nothing stored. `dry_run`: 200 with the diff and warnings, nothing stored.',
    tag: TAG,
    scopes: ['records:write'],
    params: zoneParams,
    body: changeSetRequestSchema,
    errors: ['precondition_failed', 'record_readonly', 'record_managed', 'conflict'],
    responses: {
      200: { description: 'Dry run: the diff; nothing stored', schema: dryRunSchema },
      201: {
        description: 'Stored; state pending (with `Prefer: wait`, the state after the wait)',
        schema: changeSetWrittenSchema,
        headers: ['Location', 'Idempotent-Replayed', 'Preference-Applied'],
      },
    },
    liveWait: changeSetLiveWait,
    handler: async (input) => {
      const { zone, changeSet, plan } = await submitChangeSet(writeContext(input), input.services.config, input.params.zone, input.body);
      if (!changeSet) return { status: 200, body: presentDryRun(plan) };
      return changeSetCreated(zone, changeSet, plan);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/zones/{zone}/changesets/{changeset}',
    operationId: 'getChangeSet',
    summary: 'Get a change set with its per-item results',
    description: '404 also once a `live` change set is past its 90 days (a record may still name it as its last change set).',
    tag: TAG,
    scopes: ['records:read'],
    params: changeSetParams,
    responses: { 200: { description: 'The change set', schema: changeSetSchema, headers: ['ETag'] } },
    handler: async (input) => {
      const zone = await getZone(input.context, input.services.config, input.params.zone);
      return { status: 200, body: presentChangeSet(await getChangeSet(input.context, zone, input.params.changeset)), etag: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/changesets/{changeset}/retry',
    operationId: 'retryChangeSet',
    summary: 'Retry the publication of a failed change set',
    description: 'Only from `failed` (else 409 conflict); only the push is retried, stored data is unchanged.',
    tag: TAG,
    scopes: ['records:write'],
    params: changeSetParams,
    errors: ['conflict'],
    responses: { 202: { description: 'Pending again', schema: changeSetSchema } },
    handler: async (input) => {
      return {
        status: 202,
        body: presentChangeSet(await retryChangeSet(writeContext(input), input.services.config, input.params.zone, input.params.changeset)),
      };
    },
  }),
];
