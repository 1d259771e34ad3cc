import { z } from 'zod';
import { NameError, normalizeOwner } from '../../../domain/names.js';
import { DomainError } from '../../../domain/errors.js';
import { CHANGESET_STATES } from '../../../domain/publication.js';
import { RECORD_TYPES } from '../../../domain/records/types.js';
import { isOpaqueType } from '../../../../nameserver/wire/rrTypes.js';
import { createRecord, deleteRecord, updateRecord } from '../../../services/records.js';
import { getRecordOrSystem } from '../../../services/recordView.js';
import { listRecords } from '../../../services/zones.js';
import { getZone } from '../../../services/zoneReads.js';
import { listEnvelope, listResult, pageRequest } from '../../pagination.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { booleanParam, repeatable } from '../../routing/validate.js';
import { pageQuery } from '../common.js';
import { changeSetWrittenSchema, presentChangeSet, presentRecord, presentWrittenRecord, recordSchema, recordWrittenSchema, storedEtag } from './presenter.js';
import { changeSetLiveWait, recordLiveWait } from './liveWaits.js';
import { singleRecordItem, recordIdParam, recordInputSchema, recordPatchSchema, zoneParam } from './schemas.js';

const TAG = 'Records';
const zoneParams = z.strictObject({ zone: zoneParam });
const recordParams = z.strictObject({ zone: zoneParam, record: recordIdParam });

export const recordRoutes = [
  defineRoute({
    method: 'get',
    path: '/zones/{zone}/records',
    operationId: 'listRecords',
    summary: 'List the records of a zone',
    description: 'Ordered by name (apex first), then type, then content. System records (SOA, apex NS) have `system: true`.',
    tag: TAG,
    scopes: ['records:read'],
    params: zoneParams,
    query: z.strictObject({
      type: repeatable(
        z.union([
          z.enum([...RECORD_TYPES, 'SOA']),
          z.string().refine(isOpaqueType, 'a type the service writes, SOA, or TYPEnnn of a type with no registered name (RFC 3597)'),
        ]),
      ).optional(),
      name: z.string().max(300).optional().describe('Exact zone-relative owner; `@` for the apex.'),
      q: z.string().max(255).optional().describe('Case-insensitive substring of name or presentation content.'),
      publication_state: repeatable(z.enum(CHANGESET_STATES)).optional(),
      include_system: booleanParam.default(true),
      ...pageQuery,
    }),
    responses: { 200: { description: 'A page of records', schema: listEnvelope(recordSchema), headers: ['Link'] } },
    handler: async (input) => {
      const { query } = input;
      const zone = await getZone(input.context, input.services.config, input.params.zone);
      let name: string | undefined;
      if (query.name !== undefined) {
        try {
          name = normalizeOwner(query.name, zone.name);
        } catch (e) {
          if (!(e instanceof NameError)) throw e;
          throw new DomainError('validation_failed', {}, [{ in: 'query', pointer: '/name', code: e.code, detail: e.message }]);
        }
      }
      const list = `records:${zone.id}`;
      const { after, limit } = pageRequest(input, list);
      const page = await listRecords(
        input.context,
        zone,
        { type: query.type, name, q: query.q?.toLowerCase(), publicationState: query.publication_state, includeSystem: query.include_system },
        after,
        limit,
        input.services.config.zones.nameservers,
      );
      return listResult(input, list, page.items.map(presentRecord), page.next);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/records',
    operationId: 'createRecord',
    summary: 'Create a record',
    description: 'A change set of one `create` item, validated the same way. `publication.changeset_id` names it.',
    tag: TAG,
    scopes: ['records:write'],
    params: zoneParams,
    body: recordInputSchema,
    errors: ['record_managed', 'conflict'],
    responses: {
      201: {
        description: 'Created; `warnings` as in a change set',
        schema: recordWrittenSchema,
        headers: ['Location', 'ETag', 'Idempotent-Replayed', 'Preference-Applied'],
      },
    },
    liveWait: recordLiveWait,
    handler: async (input) => {
      const { zone, record, warnings } = await createRecord(writeContext(input), input.services.config, input.params.zone, input.body, {
        locate: singleRecordItem,
      });
      return {
        status: 201,
        body: presentWrittenRecord(record, warnings),
        etag: storedEtag(record),
        headers: { Location: `/api/v1/zones/${zone.name}/records/${record.id}` },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/zones/{zone}/records/{record}',
    operationId: 'getRecord',
    summary: 'Get a record',
    tag: TAG,
    scopes: ['records:read'],
    params: recordParams,
    responses: { 200: { description: 'The record', schema: recordSchema, headers: ['ETag'] }, 304: { description: 'Not modified' } },
    handler: async (input) => {
      const zone = await getZone(input.context, input.services.config, input.params.zone);
      const record = await getRecordOrSystem(input.context, zone, input.params.record, input.services.config.zones.nameservers);
      return { status: 200, body: presentRecord(record), etag: storedEtag(record) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/zones/{zone}/records/{record}',
    operationId: 'updateRecord',
    summary: 'Change a record',
    description: 'Any of name, ttl, comment, data (complete for the type). The type cannot change. System records: 403 record_readonly. `If-Match` optional.',
    tag: TAG,
    scopes: ['records:write'],
    params: recordParams,
    body: recordPatchSchema,
    errors: ['record_readonly', 'record_managed', 'precondition_failed', 'conflict'],
    responses: { 200: { description: 'The record; `warnings` as in a change set', schema: recordWrittenSchema, headers: ['ETag', 'Preference-Applied'] } },
    liveWait: recordLiveWait,
    handler: async (input) => {
      const { record, warnings } = await updateRecord(writeContext(input), input.services.config, input.params.zone, input.params.record, input.body, {
        locate: singleRecordItem,
        ifMatch: input.request.ifMatch,
      });
      return { status: 200, body: presentWrittenRecord(record, warnings), etag: storedEtag(record) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/zones/{zone}/records/{record}',
    operationId: 'deleteRecord',
    summary: 'Delete a record',
    description: 'Returns the change set. System records: 403 record_readonly. `If-Match` optional.',
    tag: TAG,
    scopes: ['records:write'],
    params: recordParams,
    errors: ['record_readonly', 'record_managed', 'precondition_failed', 'conflict'],
    responses: {
      202: { description: 'The change set (202 also once it is live)', schema: changeSetWrittenSchema, headers: ['Location', 'Preference-Applied'] },
    },
    liveWait: changeSetLiveWait,
    handler: async (input) => {
      const { zone, changeSet, warnings } = await deleteRecord(writeContext(input), input.services.config, input.params.zone, input.params.record, {
        locate: singleRecordItem,
        ifMatch: input.request.ifMatch,
      });
      return {
        status: 202,
        body: { ...presentChangeSet(changeSet), warnings },
        headers: { Location: `/api/v1/zones/${zone.name}/changesets/${changeSet.id}` },
      };
    },
  }),
];
