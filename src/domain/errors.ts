// The closed catalogue of problem codes. Clients branch on `code` only, so a code, once
// published, keeps its meaning and status forever. Titles and details are localised here and
// nowhere else; `{name}` placeholders are filled from the error's params.

export type Language = 'en' | 'de';
type Text = Record<Language, string>;

interface CatalogueEntry {
  status: number;
  title: Text;
  detail: Text;
}

const entry = (status: number, title: Text, detail: Text): CatalogueEntry => ({ status, title, detail });

export const errorCatalogue = {
  unauthenticated: entry(
    401,
    { en: 'Authentication required', de: 'Authentifizierung erforderlich' },
    {
      en: 'Send a valid API token of this deployment as "Authorization: Bearer <token>". {reason}',
      de: 'Senden Sie ein gültiges API-Token dieser Umgebung als "Authorization: Bearer <token>". {reason}',
    },
  ),
  insufficient_scope: entry(
    403,
    { en: 'Insufficient scope', de: 'Unzureichende Berechtigung' },
    {
      en: 'This operation needs the scope(s) {scopes}, which the token does not carry.',
      de: 'Diese Operation benötigt die Berechtigung(en) {scopes}, die das Token nicht hat.',
    },
  ),
  act_as_not_allowed: entry(
    403,
    { en: 'Acting for this tenant is not allowed', de: 'Handeln für diesen Mandanten nicht erlaubt' },
    {
      en: 'The token may not act for "{target}": it is outside the token\'s subtree or not a customer.',
      de: 'Das Token darf nicht für "{target}" handeln: er liegt außerhalb des eigenen Teilbaums oder ist kein Kunde.',
    },
  ),
  act_as_unknown: entry(
    404,
    { en: 'Unknown customer', de: 'Unbekannter Kunde' },
    {
      en: 'There is no tenant or linked billing client "{target}".',
      de: 'Es gibt keinen Mandanten und keinen verknüpften Abrechnungskunden "{target}".',
    },
  ),
  tenant_suspended: entry(
    403,
    { en: 'Tenant suspended', de: 'Mandant gesperrt' },
    {
      en: 'The tenant {tenant} is suspended; only GET /me is available.',
      de: 'Der Mandant {tenant} ist gesperrt; nur GET /me ist verfügbar.',
    },
  ),
  feature_disabled: entry(
    403,
    { en: 'Feature not enabled', de: 'Funktion nicht freigeschaltet' },
    {
      en: 'The feature "{feature}" is not enabled for this tenant.',
      de: 'Die Funktion "{feature}" ist für diesen Mandanten nicht freigeschaltet.',
    },
  ),
  zone_protected: entry(
    403,
    { en: 'Protected name', de: 'Geschützter Name' },
    { en: 'The name {name} is protected.', de: 'Der Name {name} ist geschützt.' },
  ),
  record_readonly: entry(
    403,
    { en: 'Record is read-only', de: 'Eintrag ist schreibgeschützt' },
    {
      en: 'System records (SOA, apex NS) are managed by the service.',
      de: 'Systemeinträge (SOA, Apex-NS) werden vom Dienst verwaltet.',
    },
  ),
  not_owner: entry(
    403,
    { en: 'Not the owner', de: 'Nicht Eigentümer' },
    {
      en: 'The address {ip} is not assigned to the acting tenant.',
      de: 'Die Adresse {ip} ist dem handelnden Mandanten nicht zugewiesen.',
    },
  ),
  forbidden: entry(
    403,
    { en: 'Not allowed', de: 'Nicht erlaubt' },
    { en: '{reason}', de: '{reason}' },
  ),
  not_found: entry(
    404,
    { en: 'Not found', de: 'Nicht gefunden' },
    { en: 'There is no {resource} here.', de: 'Hier gibt es kein(e) {resource}.' },
  ),
  method_not_allowed: entry(
    405,
    { en: 'Method not allowed', de: 'Methode nicht erlaubt' },
    {
      en: 'Use one of {allowed} on this path.',
      de: 'Verwenden Sie auf diesem Pfad eine dieser Methoden: {allowed}.',
    },
  ),
  malformed_request: entry(
    400,
    { en: 'Malformed request', de: 'Fehlerhafte Anfrage' },
    {
      en: 'The request body could not be parsed: {reason}',
      de: 'Der Anfrageinhalt konnte nicht gelesen werden: {reason}',
    },
  ),
  payload_too_large: entry(
    413,
    { en: 'Payload too large', de: 'Anfrage zu groß' },
    {
      en: 'The request body exceeds the limit of {limit} bytes.',
      de: 'Der Anfrageinhalt überschreitet die Grenze von {limit} Bytes.',
    },
  ),
  nesting_too_deep: entry(
    400,
    { en: 'Nesting too deep', de: 'Verschachtelung zu tief' },
    {
      en: 'Objects and arrays in the request body may nest at most {limit} levels deep.',
      de: 'Objekte und Listen im Anfrageinhalt dürfen höchstens {limit} Ebenen tief verschachtelt sein.',
    },
  ),
  unsupported_media_type: entry(
    415,
    { en: 'Unsupported media type', de: 'Nicht unterstützter Medientyp' },
    {
      en: 'Send the body as {expected}.',
      de: 'Senden Sie den Inhalt als {expected}.',
    },
  ),
  validation_failed: entry(
    422,
    { en: 'Validation failed', de: 'Validierung fehlgeschlagen' },
    {
      en: 'The request contains invalid input; see errors.',
      de: 'Die Anfrage enthält ungültige Eingaben; siehe errors.',
    },
  ),
  idempotency_key_reused: entry(
    422,
    { en: 'Idempotency key reused', de: 'Idempotenzschlüssel wiederverwendet' },
    {
      en: 'This Idempotency-Key was already used with a different request.',
      de: 'Dieser Idempotency-Key wurde bereits mit einer anderen Anfrage verwendet.',
    },
  ),
  idempotency_in_progress: entry(
    409,
    { en: 'Request in progress', de: 'Anfrage in Bearbeitung' },
    {
      en: 'A request with this Idempotency-Key is still running; retry later.',
      de: 'Eine Anfrage mit diesem Idempotency-Key läuft noch; bitte später wiederholen.',
    },
  ),
  zone_exists: entry(
    409,
    { en: 'Zone exists', de: 'Zone existiert bereits' },
    { en: 'The zone {name} already exists.', de: 'Die Zone {name} existiert bereits.' },
  ),
  zone_overlap: entry(
    409,
    { en: 'Zone overlaps', de: 'Zone überschneidet sich' },
    {
      en: 'The zone {name} overlaps an existing zone.',
      de: 'Die Zone {name} überschneidet sich mit einer bestehenden Zone.',
    },
  ),
  reverse_zone_managed: entry(
    403,
    { en: 'Reverse zone managed by the service', de: 'Reverse-Zone wird vom Dienst verwaltet' },
    {
      en: 'Reverse zones such as {name} are created when a prefix is assigned, not through this endpoint.',
      de: 'Reverse-Zonen wie {name} entstehen bei der Zuweisung eines Präfixes, nicht über diesen Endpunkt.',
    },
  ),
  backend_capacity_exhausted: entry(
    503,
    { en: 'Backend capacity exhausted', de: 'Backend-Kapazität erschöpft' },
    {
      en: 'The nameservers cannot take more zones right now; retry later or contact support.',
      de: 'Die Nameserver können derzeit keine weiteren Zonen aufnehmen; bitte später erneut versuchen oder den Support kontaktieren.',
    },
  ),
  quota_exceeded: entry(
    409,
    { en: 'Quota exceeded', de: 'Kontingent erschöpft' },
    {
      en: 'The tenant has reached its {quota} limit of {limit}.',
      de: 'Der Mandant hat sein Kontingent {quota} von {limit} erreicht.',
    },
  ),
  conflict: entry(
    409,
    { en: 'Conflict', de: 'Konflikt' },
    { en: '{reason}', de: '{reason}' },
  ),
  precondition_failed: entry(
    412,
    { en: 'Precondition failed', de: 'Vorbedingung fehlgeschlagen' },
    {
      en: 'The resource has changed since the given ETag; nothing was changed.',
      de: 'Die Ressource hat sich seit dem angegebenen ETag geändert; es wurde nichts geändert.',
    },
  ),
  rate_limited: entry(
    429,
    { en: 'Rate limit exceeded', de: 'Anfragelimit überschritten' },
    {
      en: 'Too many requests; retry after {retry_after} seconds.',
      de: 'Zu viele Anfragen; bitte nach {retry_after} Sekunden wiederholen.',
    },
  ),
  internal_error: entry(
    500,
    { en: 'Internal error', de: 'Interner Fehler' },
    {
      en: 'Something went wrong on our side. Quote the request id when you contact support.',
      de: 'Bei uns ist ein Fehler aufgetreten. Nennen Sie dem Support die Request-ID.',
    },
  ),
  not_implemented: entry(
    501,
    { en: 'Not implemented', de: 'Nicht implementiert' },
    { en: '{reason}', de: '{reason}' },
  ),
  service_unavailable: entry(
    503,
    { en: 'Service unavailable', de: 'Dienst nicht verfügbar' },
    { en: '{reason}', de: '{reason}' },
  ),
} satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

/** One entry of a validation or precondition problem's `errors` list. */
export interface FieldError {
  /** Where the bad input is: the JSON body (default), the query string, a header or a path segment. */
  in?: 'body' | 'query' | 'header' | 'path';
  /** RFC 6901 JSON pointer into the body, or `/<name>` for query, header and path parameters. */
  pointer: string;
  /** Index of the offending list item (change set items, import lines). */
  index?: number;
  /** Line of an imported zone file. */
  line?: number;
  code: string;
  detail: string;
}

/** An expected failure: mapped to a problem+json response, never logged as a bug. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: Record<string, string | number> = {},
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}${Object.keys(params).length ? ` ${JSON.stringify(params)}` : ''}`);
    this.name = 'DomainError';
  }
}

export const validationFailed = (errors: FieldError[]) => new DomainError('validation_failed', {}, errors);
export const notFound = (resource: string) => new DomainError('not_found', { resource });

export function localise(code: ErrorCode, lang: Language, params: Record<string, string | number>) {
  const e = errorCatalogue[code];
  const fill = (s: string) =>
    s.replace(/\{(\w+)\}/g, (_, k: string) => (params[k] === undefined ? '' : String(params[k]))).trim();
  return { status: e.status, title: e.title[lang], detail: fill(e.detail[lang]) };
}
