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

// With the u flag a surrogate code unit matches only when it is unpaired (no UTF-8 encoding).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * One <character-string> (RFC 1035 §3.3): text of at most 255 octets of UTF-8, stored as given.
 * PostgreSQL text cannot hold U+0000; an unpaired surrogate has no UTF-8 encoding.
 */
export function characterStringField(field: string, opts: { allowEmpty: boolean }) {
  return stringField(field).superRefine((text, ctx) => {
    const octets = Buffer.byteLength(text, 'utf8');
    if (!opts.allowEmpty && octets === 0) addProblem(ctx, 'too_small', `"${field}" must not be empty.`);
    else if (octets > 255) addProblem(ctx, 'too_big', `"${field}" is ${octets} octets of UTF-8; a character-string holds at most 255 (RFC 1035 §3.3).`);
    if (text.includes('\u0000') || LONE_SURROGATE.test(text)) {
      addProblem(ctx, 'invalid_character', `"${field}" contains U+0000 or an unpaired UTF-16 surrogate.`);
    }
  });
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 (RFC 4648 §4) key or certificate material: blank space removed, at most `maxChars`. */
export function base64Field(field: string, maxChars: number) {
  return stringField(field)
    .transform((value) => value.replace(/\s+/g, ''))
    .superRefine((text, ctx) => {
      if (!text) addProblem(ctx, 'too_small', `"${field}" must not be empty.`);
      else if (!BASE64.test(text)) addProblem(ctx, 'invalid_base64', `"${field}" must be base64 (A-Z, a-z, 0-9, "+", "/", padded with "=").`);
      else if (text.length > maxChars) addProblem(ctx, 'too_big', `"${field}" has ${text.length} base64 characters; at most ${maxChars} are allowed.`);
    });
}

/**
 * Hex octets (a digest, a certificate): blank space removed, lower case; not empty, whole octets,
 * at most `maxDigits` hex digits.
 */
export function hexField(field: string, maxDigits = Number.POSITIVE_INFINITY) {
  return stringField(field)
    .transform((value) => value.replace(/\s+/g, '').toLowerCase())
    .superRefine((hex, ctx) => {
      if (!hex) addProblem(ctx, 'too_small', `"${field}" must not be empty.`);
      else if (!/^[0-9a-f]+$/.test(hex)) addProblem(ctx, 'invalid_hex', `"${field}" must be hexadecimal (0-9, a-f).`);
      else if (hex.length % 2) addProblem(ctx, 'invalid_hex', `"${field}" must have an even number of hex digits (whole octets).`);
      else if (hex.length > maxDigits) addProblem(ctx, 'too_big', `"${field}" has ${hex.length} hex digits; at most ${maxDigits} are allowed.`);
    });
}
