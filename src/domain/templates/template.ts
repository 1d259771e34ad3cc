// Record templates: typed variables rendered into record inputs (issue "templates"). Pure.
import { DomainError, type FieldError } from '../errors.js';
import { NameError, normalizeHostname } from '../names.js';

export type VariableKind = 'string' | 'ipv4' | 'ipv6' | 'hostname';

export interface TemplateVariable {
  name: string;
  description?: string;
  kind: VariableKind;
  required: boolean;
  default?: string;
}

export interface TemplateRecord {
  type: string;
  /** Owner, may use {{variables}}. */
  name: string;
  ttl?: number | null;
  /** Type-specific data; every string in it, at any depth, may use {{variables}}. Exactly one of data and content. */
  data?: Record<string, unknown>;
  /** Presentation text, may use {{variables}}; relative names are relative to the zone applied to. */
  content?: string;
}

export interface Template {
  id: string;
  name: string;
  description: string;
  variables: TemplateVariable[];
  records: TemplateRecord[];
  /** Null for the service's built-in templates. */
  tenantId: string | null;
}

export interface RenderedRecord {
  type: string;
  name: string;
  ttl?: number | null;
  data?: Record<string, unknown>;
  content?: string;
}

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Variables every template may use without declaring them. */
const BUILTIN_VARIABLES = ['zone', 'zone_dashed'] as const;

function checkKind(kind: VariableKind, value: string): string | null {
  if (kind === 'ipv4' && !IPV4.test(value)) return 'must be an IPv4 address';
  if (kind === 'ipv6' && !/^[0-9a-fA-F:.]+$/.test(value)) return 'must be an IPv6 address';
  if (kind === 'hostname') {
    try {
      normalizeHostname(value);
    } catch (e) {
      if (e instanceof NameError) return e.message;
      throw e;
    }
  }
  if (value.length > 1024) return 'is longer than 1024 characters';
  return null;
}

/**
 * Renders a template for a zone. Values are checked against their variable's kind; a record that
 * uses an optional variable left empty is left out (so one template serves with and without IPv6).
 */
export function renderTemplate(template: Template, values: Record<string, string>, zoneName: string, pointer = '/variables'): RenderedRecord[] {
  const errors: FieldError[] = [];
  const resolved = new Map<string, string>([
    ['zone', zoneName],
    ['zone_dashed', zoneName.replace(/\./g, '-')],
  ]);
  const declared = new Set(template.variables.map((v) => v.name));
  for (const name of Object.keys(values)) {
    if (!declared.has(name)) errors.push({ pointer: `${pointer}/${name}`, code: 'unknown_variable', detail: `The template has no variable "${name}".` });
  }
  for (const v of template.variables) {
    // Defaults may use the built-in variables ({{zone_dashed}}.mail.protection.outlook.com).
    const value = values[v.name] ?? v.default?.replace(PLACEHOLDER, (m, n: string) => resolved.get(n) ?? m);
    if (value === undefined || value === '') {
      if (v.required) errors.push({ pointer: `${pointer}/${v.name}`, code: 'required', detail: `The variable "${v.name}" is required.` });
      continue;
    }
    const problem = checkKind(v.kind, value);
    if (problem) errors.push({ pointer: `${pointer}/${v.name}`, code: `invalid_${v.kind}`, detail: `"${v.name}" ${problem}.` });
    else resolved.set(v.name, value);
  }
  if (errors.length) throw new DomainError('validation_failed', {}, errors);

  const out: RenderedRecord[] = [];
  for (const record of template.records) {
    let missing = false;
    const fill = (s: string) =>
      s.replace(PLACEHOLDER, (_, name: string) => {
        const v = resolved.get(name);
        if (v === undefined) missing = true;
        return v ?? '';
      });
    const rendered: RenderedRecord = { type: record.type, name: fill(record.name), ...(record.ttl !== undefined ? { ttl: record.ttl } : {}) };
    if (record.data !== undefined) rendered.data = mapStrings(record.data, fill) as Record<string, unknown>;
    if (record.content !== undefined) rendered.content = fill(record.content);
    if (!missing) out.push(rendered);
  }
  return out;
}

/**
 * A copy of a data value with `f` applied to every string in it, at any depth: SVCB/HTTPS keep
 * theirs in `params` (`{"alpn": ["{{proto}}"], "ipv4hint": ["{{ip}}"]}`).
 */
function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  return value;
}

/** Placeholders a template uses that it neither declares nor gets built in. */
export function undeclaredPlaceholders(template: Pick<Template, 'variables' | 'records'>): string[] {
  const known = new Set<string>([...BUILTIN_VARIABLES, ...template.variables.map((v) => v.name)]);
  const used = new Set<string>();
  for (const r of template.records) {
    const texts: string[] = [r.name, r.content ?? ''];
    mapStrings(r.data ?? {}, (s) => (texts.push(s), s));
    for (const s of texts) {
      for (const m of s.matchAll(PLACEHOLDER)) used.add(m[1]!);
    }
  }
  return [...used].filter((n) => !known.has(n));
}
