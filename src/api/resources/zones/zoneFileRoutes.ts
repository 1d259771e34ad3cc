import { z } from 'zod';
import { getZone } from '../../../services/zoneReads.js';
import { exportZoneFile } from '../../../services/zoneExport.js';
import { importZoneFile, MAX_ZONEFILE_BYTES } from '../../../services/zoneImport.js';
import { defineRoute, writeContext } from '../../routing/route.js';
import { booleanParam } from '../../routing/validate.js';
import { changeSetWrittenSchema, dryRunSchema, presentChangeSet, presentDryRun } from './presenter.js';
import { importLiveWait } from './liveWaits.js';
import { zoneParam } from './schemas.js';

const TAG = 'Zone files';
const params = z.strictObject({ zone: zoneParam });
/** Multipart fields arrive as strings. */
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

const skippedSchema = z.array(
  z.object({ line: z.number().int(), owner: z.string(), type: z.string(), reason: z.enum(['soa', 'apex_ns', 'dnssec', 'unsupported_type', 'managed']) }),
);

export const zoneFileRoutes = [
  defineRoute({
    method: 'get',
    path: '/zones/{zone}/export',
    operationId: 'exportZone',
    summary: 'The zone as an RFC 1035 master file',
    description:
      '`text/dns`: absolute names, explicit TTLs, long TXT split into 255-octet strings. `include_system` adds the SOA and apex NS; `download` sets `Content-Disposition: attachment; filename="<zone>.zone"`.',
    tag: TAG,
    scopes: ['zones:read', 'records:read'],
    params,
    query: z.strictObject({ include_system: booleanParam.default(true), download: booleanParam.default(false) }),
    responses: { 200: { description: 'The zone file', contentType: 'text/dns', schema: z.string(), headers: ['ETag'] }, 304: { description: 'Not modified' } },
    handler: async (input) => {
      const zone = await getZone(input.context, input.services.config, input.params.zone);
      const text = await exportZoneFile(input.context, zone, {
        includeSystem: input.query.include_system,
        nameservers: input.services.config.zones.nameservers,
      });
      return {
        status: 200,
        body: text,
        contentType: 'text/dns; charset=utf-8',
        etag: true,
        headers: (input.query.download ? { 'Content-Disposition': `attachment; filename="${zone.name}.zone"` } : {}) as Record<string, string>,
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/zones/{zone}/import',
    operationId: 'importZone',
    feature: 'zone_import',
    summary: 'Import a zone file (JSON or multipart upload)',
    description:
      'JSON `{zonefile, mode, dry_run}` or `multipart/form-data` with fields `mode`, `dry_run` and the file in `file` (at most 1 MiB, else 413). `merge` (default) adds records that do not exist; `replace` makes the zone match the file. SOA, apex NS, DNSSEC and unsupported types are skipped and listed in `skipped` with their lines. TTL 1 ("automatic" in Cloudflare exports) follows the zone default (warning `ttl_automatic`). Any error rejects the whole import with 422, each error with its `line`. Dry run: 200 with the diff; applied: 201 with the change set.',
    tag: TAG,
    scopes: ['zones:write', 'records:write'],
    params,
    upload: { fileField: 'file', bodyField: 'zonefile', maxBytes: MAX_ZONEFILE_BYTES },
    body: z.strictObject({
      zonefile: z.string().describe('The master file; for uploads, the `file` field.'),
      mode: z.enum(['merge', 'replace']).default('merge'),
      dry_run: flag.default(false),
    }),
    errors: ['conflict'],
    responses: {
      200: { description: 'Dry run: the diff; nothing stored', schema: dryRunSchema.extend({ skipped: skippedSchema, unchanged: z.number().int() }) },
      201: {
        description: 'Applied as one change set',
        schema: z.object({ changeset: changeSetWrittenSchema, skipped: skippedSchema, unchanged: z.number().int() }),
        headers: ['Location', 'Idempotent-Replayed', 'Preference-Applied'],
      },
    },
    liveWait: importLiveWait,
    handler: async (input) => {
      const { services, body } = input;
      const result = await importZoneFile(writeContext(input), services.config, input.params.zone, {
        zonefile: body.zonefile,
        mode: body.mode,
        dryRun: body.dry_run,
      });
      const { zone } = result;
      if (!result.changeSet) return { status: 200, body: { ...presentDryRun(result.plan), skipped: result.skipped, unchanged: result.unchanged } };
      return {
        status: 201,
        body: { changeset: { ...presentChangeSet(result.changeSet), warnings: result.plan.warnings }, skipped: result.skipped, unchanged: result.unchanged },
        headers: { Location: `/api/v1/zones/${zone.name}/changesets/${result.changeSet.id}` },
      };
    },
  }),
];
