import { z } from 'zod';
import { cursorParam, limitParam } from '../routing/validate.js';
import { POLICY_RULES } from '../../domain/credentialPolicy.js';

export const timestamp = z.iso.datetime().describe('RFC 3339, UTC');
export const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const pageQuery = { cursor: cursorParam, limit: limitParam };

export const tenantIdParam = z.string().regex(/^ten_[a-z2-7]+$/, 'must be a tenant id (ten_…)');

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string().describe('Stable machine-readable code; branch on this only.'),
    detail: z.string(),
    instance: z.string(),
    request_id: z.string().describe('Equal to the X-Request-Id response header.'),
    rule: z
      .enum(POLICY_RULES)
      .optional()
      .describe('`credential_policy` only: the rule of the credential policy that refused the request (docs/credentials.md).'),
    errors: z
      .array(
        z.object({
          in: z.enum(['body', 'query', 'header', 'path']).optional().describe('Absent means the JSON body.'),
          pointer: z.string().describe('RFC 6901 JSON pointer into the body, or /<name> of a parameter.'),
          index: z.number().int().optional(),
          line: z.number().int().optional(),
          code: z.string(),
          detail: z.string(),
        }),
      )
      .optional(),
  })
  .describe('RFC 7807 problem document');
