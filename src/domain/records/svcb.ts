// SVCB and HTTPS (RFC 9460): a service's endpoints and parameters. Data (docs/records.md):
// { priority, target, params }, params keyed by SvcParamKey name; the codec
// (nameserver/wire/types/svcb.ts) says what each value looks like, this row adds the RFC's rules
// for a self-consistent record (§2.4.2, §2.4.3, §7.1.1, §8; RFC 9461 §5), each problem pointed at
// the param it is about (/data/params/<key>).
import { z } from 'zod';
import { canonicalSvcParam, SVC_PARAM_KEYS, svcParamDataKeyCode, svcParamKeyName } from '../../../nameserver/wire/types/svcb.js';
import { addProblem, hostnameField, uintField } from './fields.js';
import type { RecordTypePolicy } from './rule.js';

export type SvcbData = { priority: number; target: string; params: Record<string, unknown> };

// RFC 6570 §2: a URI template. Literals are its ASCII ones (non-ASCII must be percent-encoded:
// BIND refuses a raw one in dohpath); expressions an optional operator and variables, each with an
// optional modifier (":n" or "*").
const PCT = '%[0-9A-Fa-f]{2}';
const LITERAL = `(?:[\\x21\\x23\\x24\\x26\\x28-\\x3b\\x3d\\x3f-\\x5b\\x5d\\x5f\\x61-\\x7a\\x7e]|${PCT})`;
const VARCHAR = `(?:[A-Za-z0-9_]|${PCT})`;
const VARSPEC = `${VARCHAR}(?:\\.?${VARCHAR})*(?::[1-9][0-9]{0,3}|\\*)?`;
const EXPRESSION = `\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\}`;
const URI_TEMPLATE = new RegExp(`^(?:${LITERAL}|${EXPRESSION})*$`);
const EXPRESSION_VARIABLES = /\{[+#./;?&=,!@|]?([^}]*)\}/g;

/** RFC 9461 §5: dohpath is a relative URI template (starting with "/") with the variable "dns". */
function dohpathProblem(path: string): string | null {
  const hasDns = [...path.matchAll(EXPRESSION_VARIABLES)].some((m) => m[1]!.split(',').some((v) => v.replace(/(:[0-9]+|\*)$/, '') === 'dns'));
  if (path.startsWith('/') && URI_TEMPLATE.test(path) && hasDns) return null;
  return `"dohpath" must be a relative URI template (RFC 6570, ASCII, other characters percent-encoded) starting with "/" that has the variable "dns", for example "/dns-query{?dns}" (RFC 9461 §5); "${path}" is not.`;
}

function checkParams(priority: number, given: Record<string, unknown>, ctx: z.core.$RefinementCtx<unknown>): Record<string, unknown> | null {
  const entries: [code: number, name: string, value: unknown][] = [];
  let ok = true;
  const problem = (code: string, message: string, key?: string) => {
    addProblem(ctx, code, message, key === undefined ? ['params'] : ['params', key]);
    ok = false;
  };
  for (const [name, value] of Object.entries(given)) {
    let code: number;
    try {
      code = svcParamDataKeyCode(name);
    } catch (e) {
      problem('unknown_svc_param', `${(e as Error).message}.`, name);
      continue;
    }
    try {
      entries.push([code, name, canonicalSvcParam(name, value)]);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      problem('invalid_svc_param', `"${name}": ${e.message}.`, name);
      continue;
    }
    // PostgreSQL's jsonb cannot hold U+0000 (opaque values are escaped, so only text values can).
    if (JSON.stringify(value).includes('\\u0000')) problem('invalid_character', `"${name}" contains U+0000; it cannot be stored.`, name);
    // RFC 9460 §7.3: an ECHConfigList holds at least one config (BIND reads an empty one, Knot does not).
    if (name === 'ech' && value === '') problem('invalid_svc_param', '"ech" must not be empty: it is an ECHConfigList in base64 (RFC 9460 §7.3).', name);
    if (name === 'dohpath' && typeof value === 'string') {
      const dohpath = dohpathProblem(value);
      if (dohpath) problem('invalid_dohpath', dohpath, name);
    }
  }
  if (!ok) return null;
  // RFC 9460 §2.4.2: in AliasMode the record is only a pointer.
  if (priority === 0 && entries.length > 0) {
    problem('alias_mode_params', 'A record with priority 0 is in AliasMode and has no params (RFC 9460 §2.4.2); give a priority of 1 or more for a service.');
    return null;
  }
  const present = new Set(entries.map(([, name]) => name));
  const mandatory = entries.find(([code]) => code === SVC_PARAM_KEYS.mandatory);
  for (const key of (mandatory?.[2] as string[] | undefined) ?? []) {
    if (key === 'mandatory') problem('mandatory_lists_itself', '"mandatory" must not list itself; it is always mandatory (RFC 9460 §8).', 'mandatory');
    else if (!present.has(key))
      problem('mandatory_key_missing', `"mandatory" lists "${key}", which is not in params (RFC 9460 §8); add it or remove it from the list.`, 'mandatory');
  }
  // RFC 9460 §7.1.1: without alpn the client would have no protocol at all.
  if (present.has('no-default-alpn') && !present.has('alpn')) {
    problem('alpn_required', '"no-default-alpn" requires "alpn": without the default protocol the record must name one (RFC 9460 §7.1.1).', 'no-default-alpn');
  }
  if (!ok) return null;
  entries.sort((x, y) => x[0] - y[0]);
  return Object.fromEntries(entries.map(([code, , value]) => [svcParamKeyName(code), value]));
}

const addresses = (family: string) => ({ type: 'array', minItems: 1, items: { type: 'string' }, description: `${family} addresses.` });

/** What the OpenAPI document shows of `params` (the checks themselves are checkParams'). */
const PARAMS_DOC = {
  description: 'SvcParams by key name (RFC 9460 §7, RFC 9461, RFC 9540); other keys as keyNNNNN (9–65534) with a presentation string. None in AliasMode.',
  properties: {
    mandatory: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: 'Keys a client must understand; each present in params; not "mandatory".',
    },
    alpn: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 }, description: 'ALPN protocol ids, 1–255 octets each.' },
    'no-default-alpn': { const: true, description: 'Requires alpn.' },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    ipv4hint: addresses('IPv4'),
    ech: { type: 'string', contentEncoding: 'base64', minLength: 1, description: 'ECHConfigList.' },
    ipv6hint: addresses('IPv6'),
    dohpath: { type: 'string', description: 'Relative URI template with the variable "dns", e.g. /dns-query{?dns}.' },
    ohttp: { const: true },
  },
  patternProperties: { '^key[1-9][0-9]{0,4}$': { type: 'string', description: 'Octets: \\DDD, \\" and \\\\ escapes.' } },
  examples: [{ alpn: ['h3', 'h2'], port: 443, ipv4hint: ['192.0.2.1'] }],
};

export const svcbRule: RecordTypePolicy = {
  type: 'SVCB',
  data: z
    .strictObject({
      // RFC 9460 §2.4.1: 0 is AliasMode, 1–65535 ServiceMode (lower is preferred).
      priority: uintField('priority', 65535),
      // RFC 9460 §2.5: "." is the owner itself in ServiceMode, "no such service" in AliasMode.
      target: hostnameField('target', { allowRoot: true }),
      params: z
        .record(z.string(), z.unknown(), { error: '"params" must be an object of SvcParams, keyed by name ("alpn", "port", …).' })
        .optional()
        .meta(PARAMS_DOC),
    })
    .transform((d, ctx) => {
      const params = checkParams(d.priority, d.params ?? {}, ctx);
      return params === null ? z.NEVER : { priority: d.priority, target: d.target, params };
    }),
  ownerProblem: () => null,
  zoneKinds: ['forward'],
};

export const httpsRule: RecordTypePolicy = { ...svcbRule, type: 'HTTPS' };
