// zod building blocks shared by the per-type `data` schemas. Every failure carries a stable code:
// zod's own codes for type and range problems, `params.code` on custom issues (parseRecordData
// turns them into `errors[].code`).
import { z } from 'zod';
import { NameError, normalizeHostname } from '../names.js';

type Ctx = z.core.$RefinementCtx<unknown>;

/** Adds a custom issue with a stable code; `path` is relative to where the check runs. */
export function addProblem(ctx: Ctx, code: string, message: string, path: PropertyKey[] = []): void {
  ctx.addIssue({ code: 'custom', message, params: { code }, path });
}

/** An unsigned integer field 0..max (16-bit and 8-bit RDATA fields). */
export function uintField(field: string, max: number) {
  const error = `"${field}" must be an integer from 0 to ${max}.`;
  return z.number({ error }).int({ error }).min(0, { error }).max(max, { error });
}

/** A small enumerated integer field, e.g. TLSA usage 0..3. */
export function codeField(field: string, max: number, meaning: string) {
  const error = `"${field}" must be an integer from 0 to ${max} (${meaning}).`;
  return z.number({ error }).int({ error }).min(0, { error }).max(max, { error });
}

export function stringField(field: string) {
  return z.string({ error: `"${field}" must be a string.` });
}

/** A target host name inside RDATA, normalised by normalizeHostname ('.' only with allowRoot). */
export function hostnameField(field: string, opts: { allowRoot?: boolean } = {}) {
  return stringField(field).transform((value, ctx) => {
    try {
      return normalizeHostname(value, opts);
    } catch (e) {
      if (!(e instanceof NameError)) throw e;
      addProblem(ctx, e.code, `"${field}": ${e.message}`);
      return z.NEVER;
    }
  });
}

/** True when a value passed its field schema (used to keep cross-field checks from piling on). */
export const isUint = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
