// The closed catalogue of problem codes. Clients branch on `code` only, so a code, once
// published, keeps its meaning and status forever. Titles and details are localised here and
// nowhere else — including the two kinds of text a detail is built from: the `reason` of the
// generic codes (a key of `problemReasons`, never free English text) and the `resource` of
// `not_found` (a key of `resourceNouns`, declined with the German article its template asks for).
// `{name}` placeholders are filled from the error's params; `{resource:kein:acc}` asks for the
// noun with an article ("der" or "kein") in a case (nom, acc, dat).

export type Language = 'en' | 'de';
type Text = Record<Language, string>;

interface CatalogueEntry {
  status: number;
  title: Text;
  detail: Text;
  /** Params the problem document also carries as extension members (RFC 7807 §3.2), for clients to branch on. */
  members?: readonly string[];
}

const entry = (status: number, title: Text, detail: Text, members?: readonly string[]): CatalogueEntry => ({
  status,
  title,
  detail,
  ...(members ? { members } : {}),
});

type Gender = 'm' | 'f' | 'n';
type Case = 'nom' | 'acc' | 'dat';
type Article = 'der' | 'kein';

/** A German noun phrase: gender, the noun in each case (weak nouns change: Mandant → Mandanten), an optional adjective stem. */
interface GermanNoun {
  gender: Gender;
  forms: Record<Case, string>;
  adjective?: string;
}

const noun = (gender: Gender, nom: string, oblique = nom, adjective?: string): GermanNoun => ({
  gender,
  forms: { nom, acc: gender === 'm' ? oblique : nom, dat: gender === 'm' || gender === 'n' ? oblique : nom },
  ...(adjective ? { adjective } : {}),
});

/** What `not_found` can be about. The key is the English noun. */
export const resourceNouns = {
  resource: { en: 'resource', de: noun('f', 'Ressource') },
  zone: { en: 'zone', de: noun('f', 'Zone') },
  'deleted zone': { en: 'deleted zone', de: noun('f', 'Zone', 'Zone', 'gelöscht') },
  record: { en: 'record', de: noun('m', 'Eintrag') },
  'change set': { en: 'change set', de: noun('m', 'Änderungssatz') },
  template: { en: 'template', de: noun('f', 'Vorlage') },
  tenant: { en: 'tenant', de: noun('m', 'Mandant', 'Mandanten') },
  'API client': { en: 'API client', de: noun('m', 'API-Client') },
  token: { en: 'token', de: noun('n', 'Token') },
  user: { en: 'user', de: noun('m', 'Benutzer') },
  prefix: { en: 'prefix', de: noun('n', 'Präfix') },
  'address space': { en: 'address space', de: noun('m', 'Adressraum') },
  'IP assignment': { en: 'IP assignment', de: noun('f', 'IP-Zuweisung') },
  'DynDNS host': { en: 'DynDNS host', de: noun('m', 'DynDNS-Host') },
  webhook: { en: 'webhook', de: noun('m', 'Webhook') },
  'webhook delivery': { en: 'webhook delivery', de: noun('f', 'Webhook-Zustellung') },
  'TSIG key': { en: 'TSIG key', de: noun('m', 'TSIG-Schlüssel') },
  'secondary set': { en: 'secondary set', de: noun('m', 'Secondary-Verbund') },
} satisfies Record<string, { en: string; de: GermanNoun }>;

export type ResourceNoun = keyof typeof resourceNouns;

const ARTICLES: Record<Article, Record<Case, Record<Gender, string>>> = {
  der: { nom: { m: 'der', f: 'die', n: 'das' }, acc: { m: 'den', f: 'die', n: 'das' }, dat: { m: 'dem', f: 'der', n: 'dem' } },
  kein: { nom: { m: 'kein', f: 'keine', n: 'kein' }, acc: { m: 'keinen', f: 'keine', n: 'kein' }, dat: { m: 'keinem', f: 'keiner', n: 'keinem' } },
};
// Adjective endings: weak after "der", mixed after "kein".
const ADJECTIVE_ENDINGS: Record<Article, Record<Case, Record<Gender, string>>> = {
  der: { nom: { m: 'e', f: 'e', n: 'e' }, acc: { m: 'en', f: 'e', n: 'e' }, dat: { m: 'en', f: 'en', n: 'en' } },
  kein: { nom: { m: 'er', f: 'e', n: 'es' }, acc: { m: 'en', f: 'e', n: 'es' }, dat: { m: 'en', f: 'en', n: 'en' } },
};

/** "keinen Mandanten", "die gelöschte Zone", "kein Token". */
export function declineGerman(n: GermanNoun, article: Article, grammaticalCase: Case): string {
  const adjective = n.adjective ? `${n.adjective}${ADJECTIVE_ENDINGS[article][grammaticalCase][n.gender]} ` : '';
  return `${ARTICLES[article][grammaticalCase][n.gender]} ${adjective}${n.forms[grammaticalCase]}`;
}

/**
 * Why a generic problem (`unauthenticated`, `forbidden`, `conflict`, `malformed_request`,
 * `not_implemented`, `service_unavailable`) happened, and which rule of a credential policy
 * refused (`credential_policy`). Placeholders are filled from the same params.
 */
export const problemReasons = {
  no_authorization_header: {
    en: 'No Authorization header was sent.',
    de: 'Es wurde kein Authorization-Header gesendet.',
  },
  authorization_not_bearer: {
    en: 'The Authorization header is not of the form "Bearer <token>".',
    de: 'Der Authorization-Header hat nicht die Form "Bearer <token>".',
  },
  token_prefix_unknown: { en: 'The token has no known prefix.', de: 'Das Token hat kein bekanntes Präfix.' },
  token_other_deployment: {
    en: 'This is the {deployment} deployment; the token belongs to the other one.',
    de: 'Dies ist die Umgebung {deployment}; das Token gehört zur anderen Umgebung.',
  },
  token_unknown: { en: 'The token is not known.', de: 'Das Token ist unbekannt.' },
  token_revoked: { en: 'The token has been revoked.', de: 'Das Token wurde widerrufen.' },
  token_expired: { en: 'The token has expired.', de: 'Das Token ist abgelaufen.' },
  own_settings: {
    en: 'A tenant cannot change its own settings; its parent does.',
    de: 'Ein Mandant kann seine eigenen Einstellungen nicht ändern; das tut der übergeordnete Mandant.',
  },
  templates_defined_by_resellers: {
    en: 'Templates are defined by platform and reseller tenants; customers apply them.',
    de: 'Vorlagen legen Plattform- und Reseller-Mandanten an; Kunden wenden sie an.',
  },
  deleted_zones_for_platform: {
    en: 'Deleted zones are kept for provider staff (platform tokens).',
    de: 'Gelöschte Zonen sind den Mitarbeitern des Anbieters vorbehalten (Plattform-Tokens).',
  },
  lab_platform_token_only: {
    en: "The lab's simulations are changed with the lab platform token.",
    de: 'Die Simulationen des Labors ändert nur das Plattform-Token des Labors.',
  },
  lab_registered_here: {
    en: '{zone} is registered through the provider: the service puts its DS records at the parent. Mark it foreign-registered first.',
    de: '{zone} ist über den Anbieter registriert: Der Dienst setzt die DS-Einträge bei der übergeordneten Zone. Markieren Sie sie zuerst als fremd registriert.',
  },
  webhook_disabled: {
    en: 'The webhook {webhook} is disabled: enable it first ("POST /webhooks/{webhook}/enable"); its pending deliveries are then attempted at once.',
    de: 'Der Webhook {webhook} ist deaktiviert: Aktivieren Sie ihn zuerst ("POST /webhooks/{webhook}/enable"); seine ausstehenden Zustellungen werden dann sofort versucht.',
  },
  template_name_taken: {
    en: 'A template named "{name}" exists already.',
    de: 'Eine Vorlage namens "{name}" gibt es bereits.',
  },
  rollover_for_platform: {
    en: 'Key rollovers on request are for provider staff (platform tokens); ZSKs roll over by themselves.',
    de: 'Schlüsselwechsel auf Anforderung sind den Mitarbeitern des Anbieters vorbehalten (Plattform-Tokens); Zonensignaturschlüssel wechseln von selbst.',
  },
  dnssec_rollover_needs_active: {
    en: 'A key rollover needs DNSSEC active and no other rollover of that key running; {name} is {state}.',
    de: 'Ein Schlüsselwechsel setzt aktives DNSSEC und keinen laufenden Wechsel dieses Schlüssels voraus; {name} ist im Zustand "{state}".',
  },
  dnssec_switched_off: {
    en: 'DNSSEC signing is switched off in this deployment ("DNSSEC_SIGNING=off").',
    de: 'Das DNSSEC-Signieren ist in dieser Umgebung abgeschaltet ("DNSSEC_SIGNING=off").',
  },
  prefixes_for_staff: {
    en: "Prefixes are attached and detached by provider staff (platform tokens) or the customer's reseller.",
    de: 'Präfixe hängen die Mitarbeiter des Anbieters (Plattform-Tokens) oder der Reseller des Kunden an und ab.',
  },
  prefix_for_customers: {
    en: 'A prefix belongs to a customer tenant; {tenant_id} is not one.',
    de: 'Ein Präfix gehört einem Kunden-Mandanten; {tenant_id} ist keiner.',
  },
  reverse_zone_still_deleting: {
    en: 'The reverse zone {zone} of an earlier attachment is still being deleted; try again shortly.',
    de: 'Die Reverse-Zone {zone} einer früheren Zuordnung wird noch gelöscht; bitte gleich erneut versuchen.',
  },
  dyndns_host_exists: {
    en: 'There is a DynDNS host at {name} already.',
    de: 'Unter {name} gibt es bereits einen DynDNS-Host.',
  },
  dyndns_name_in_use: {
    en: 'The name {name} holds {types} records already; a DynDNS host needs a name without address records or CNAME.',
    de: 'Der Name {name} hat bereits {types}-Einträge; ein DynDNS-Host braucht einen Namen ohne Adresseinträge und CNAME.',
  },
  zone_being_deleted: { en: 'The zone {zone} is being deleted.', de: 'Die Zone {zone} wird gerade gelöscht.' },
  zone_deletion_running: {
    en: 'The deletion of {zone} is already running.',
    de: 'Die Löschung von {zone} läuft bereits.',
  },
  retry_needs_failed_change_set: {
    en: 'Only a failed change set can be retried; this one is {state}.',
    de: 'Nur ein fehlgeschlagener Änderungssatz kann wiederholt werden; dieser hat den Zustand "{state}".',
  },
  user_exists: {
    en: 'A user {email} exists in this tenant already.',
    de: 'Einen Benutzer {email} gibt es in diesem Mandanten bereits.',
  },
  platform_exists: {
    en: 'A platform tenant exists already; issue further tokens over the API.',
    de: 'Einen Plattform-Mandanten gibt es bereits; weitere Tokens stellen Sie über die API aus.',
  },
  multipart_unreadable: { en: 'the multipart body could not be read.', de: 'Der Multipart-Inhalt ist nicht lesbar.' },
  body_not_decompressible: {
    en: 'the body could not be decompressed.',
    de: 'Der Inhalt ließ sich nicht entpacken.',
  },
  body_not_json: { en: 'the body is not valid JSON.', de: 'Der Inhalt ist kein gültiges JSON.' },
  body_unreadable: { en: 'the body is not a well-formed request body.', de: 'Der Inhalt ist nicht wohlgeformt.' },
  method_not_supported: { en: '{method} is not supported.', de: '{method} wird nicht unterstützt.' },
  billing_unreachable: {
    en: 'The billing system cannot be reached; try again later.',
    de: 'Das Abrechnungssystem ist nicht erreichbar; bitte später erneut versuchen.',
  },
  ip_spaces_for_platform: {
    en: "The provider's address spaces and the assignments from them are managed by provider staff (platform tokens).",
    de: 'Die Adressräume des Anbieters und die Zuweisungen daraus verwalten die Mitarbeiter des Anbieters (Plattform-Tokens).',
  },
  assignments_by_platform_or_reseller: {
    en: 'IP addresses are assigned by provider staff, or handed on by a reseller to one of its customers.',
    de: 'IP-Adressen weisen die Mitarbeiter des Anbieters zu, oder ein Reseller gibt sie an einen seiner Kunden weiter.',
  },
  assignment_target_customer: {
    en: 'A reseller hands its addresses on to one of its customers only.',
    de: 'Ein Reseller gibt seine Adressen nur an einen seiner Kunden weiter.',
  },
  ip_block_overlap: {
    en: '{cidr} overlaps {other}.',
    de: '{cidr} überschneidet sich mit {other}.',
  },
  ip_space_has_assignments: {
    en: 'The address space {cidr} still has assignments; delete them first.',
    de: 'Der Adressraum {cidr} hat noch Zuweisungen; löschen Sie diese zuerst.',
  },
  assignment_has_children: {
    en: 'Parts of {cidr} are handed on to customers; delete those assignments first.',
    de: 'Teile von {cidr} sind an Kunden weitergegeben; löschen Sie diese Zuweisungen zuerst.',
  },
  write_contention: {
    en: 'Concurrent writes kept colliding with this one; nothing was stored. Try again shortly.',
    de: 'Gleichzeitige Schreibvorgänge kollidierten wiederholt mit diesem; es wurde nichts gespeichert. Bitte gleich erneut versuchen.',
  },
  secondary_set_name_taken: {
    en: 'A secondary set named {name} exists already for this tenant.',
    de: 'Einen Secondary-Verbund namens {name} gibt es für diesen Mandanten bereits.',
  },
  tsig_key_name_taken: {
    en: 'A TSIG key named {name} exists already: key names are unique across the service, since a nameserver finds a key by its name alone.',
    de: 'Einen TSIG-Schlüssel namens {name} gibt es bereits: Schlüsselnamen sind im ganzen Dienst eindeutig, da ein Nameserver einen Schlüssel allein an seinem Namen erkennt.',
  },
  policy_expired: { en: 'Its policy expired at {expires_at}.', de: 'Seine Richtlinie ist am {expires_at} abgelaufen.' },
  policy_source: {
    en: 'It may not be used from {source}: the address lies outside its "source_cidrs".',
    de: 'Er darf nicht von {source} aus verwendet werden: Die Adresse liegt außerhalb seiner "source_cidrs".',
  },
  policy_zone: { en: 'The zone {zone} is not among its "zones".', de: 'Die Zone {zone} gehört nicht zu seinen "zones".' },
  policy_name: { en: 'The name {name} matches none of its "names".', de: 'Der Name {name} passt zu keinem seiner "names".' },
  policy_type: { en: 'The type {type} is not among its "types".', de: 'Der Typ {type} gehört nicht zu seinen "types".' },
  policy_whole_zone: {
    en: 'A write to the whole zone {zone} (its settings, creation, deletion or DNSSEC) needs a policy without "names" and "types".',
    de: 'Eine Änderung der ganzen Zone {zone} (Einstellungen, Anlegen, Löschen oder DNSSEC) setzt eine Richtlinie ohne "names" und "types" voraus.',
  },
  policy_wider: {
    en: 'A credential with a policy issues credentials only within that policy; the new policy allows more under this rule.',
    de: 'Ein Zugang mit Richtlinie stellt Zugänge nur innerhalb dieser Richtlinie aus; die neue Richtlinie erlaubt unter dieser Regel mehr.',
  },
  database_unreachable: {
    en: 'The database is not reachable; nothing was stored. Try again shortly.',
    de: 'Die Datenbank ist nicht erreichbar; es wurde nichts gespeichert. Bitte gleich erneut versuchen.',
  },
} satisfies Record<string, Text>;

export type ProblemReason = keyof typeof problemReasons;

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
      de: 'Das Token darf nicht für "{target}" handeln: Dieser Mandant liegt außerhalb des Teilbaums des Tokens oder ist kein Kunde.',
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
  zone_protected: entry(403, { en: 'Protected name', de: 'Geschützter Name' }, { en: 'The name {name} is protected.', de: 'Der Name {name} ist geschützt.' }),
  record_readonly: entry(
    403,
    { en: 'Record is read-only', de: 'Eintrag ist schreibgeschützt' },
    {
      en: 'System records (SOA, apex NS) are managed by the service.',
      de: 'Systemeinträge (SOA, Apex-NS) werden vom Dienst verwaltet.',
    },
  ),
  record_managed: entry(
    409,
    { en: 'Record is kept by another object', de: 'Eintrag wird von einem anderen Objekt verwaltet' },
    {
      en: 'Records kept by a dynamic DNS host or an address space change only through it; see errors.',
      de: 'Einträge, die ein DynDNS-Host oder ein Adressraum verwaltet, ändern sich nur über diesen; siehe errors.',
    },
  ),
  credential_policy: entry(
    403,
    { en: 'Outside the credential policy', de: 'Außerhalb der Zugangsrichtlinie' },
    {
      en: 'The policy of the credential refuses this request (rule "{rule}"). {reason}',
      de: 'Die Richtlinie dieses Zugangs lässt die Anfrage nicht zu (Regel "{rule}"). {reason}',
    },
    ['rule'],
  ),
  not_owner: entry(
    403,
    { en: 'Not the owner', de: 'Nicht der Eigentümer' },
    {
      en: 'The address {ip} is not assigned to the acting tenant.',
      de: 'Die Adresse {ip} ist dem handelnden Mandanten nicht zugewiesen.',
    },
  ),
  forbidden: entry(403, { en: 'Not allowed', de: 'Nicht erlaubt' }, { en: '{reason}', de: '{reason}' }),
  not_found: entry(404, { en: 'Not found', de: 'Nicht gefunden' }, { en: 'There is no {resource} here.', de: 'Hier gibt es {resource:kein:acc}.' }),
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
      en: 'Send the body as one of: {expected}.',
      de: 'Senden Sie den Inhalt in einem dieser Formate: {expected}.',
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
      de: 'Dieser Idempotency-Key wurde bereits für eine andere Anfrage verwendet.',
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
      en: 'Reverse zones such as {name} are created and deleted with their prefix, not through this endpoint.',
      de: 'Reverse-Zonen wie {name} entstehen und verschwinden mit ihrem Präfix, nicht über diesen Endpunkt.',
    },
  ),
  prefix_overlap: entry(
    409,
    { en: 'Prefix overlaps', de: 'Präfix überschneidet sich' },
    {
      en: '{cidr} overlaps {other} ({what}): address blocks the service hosts reverse DNS for never overlap.',
      de: '{cidr} überschneidet sich mit {other} ({what}): Adressblöcke, für die der Dienst Reverse-DNS betreibt, überschneiden sich nie.',
    },
  ),
  backend_capacity_exhausted: entry(
    503,
    { en: 'Backend capacity exhausted', de: 'Kapazität der Nameserver erschöpft' },
    {
      en: 'The nameservers cannot take more zones right now; retry later or contact support.',
      de: 'Die Nameserver können derzeit keine weiteren Zonen aufnehmen; bitte später erneut versuchen oder den Kundendienst kontaktieren.',
    },
  ),
  quota_exceeded: entry(
    409,
    { en: 'Quota exceeded', de: 'Kontingent erschöpft' },
    {
      en: 'The tenant has reached its {quota} limit of {limit}.',
      de: 'Der Mandant hat seine Grenze {quota} ({limit}) erreicht.',
    },
  ),
  dnssec_not_delegated: entry(
    409,
    { en: 'Zone not delegated to the service', de: 'Zone nicht an den Dienst delegiert' },
    {
      en: "The NS records of {name} at its parent do not point at the service's nameservers ({nameservers}); DNSSEC can be enabled once they do.",
      de: 'Die NS-Einträge von {name} bei der übergeordneten Zone zeigen nicht auf die Nameserver des Dienstes ({nameservers}); DNSSEC lässt sich einschalten, sobald sie es tun.',
    },
  ),
  dnssec_transition_in_progress: entry(
    409,
    { en: 'DNSSEC transition in progress', de: 'DNSSEC-Umstellung läuft' },
    {
      en: 'DNSSEC of {name} is being switched off (state {state}); wait until it is off.',
      de: 'DNSSEC von {name} wird gerade abgeschaltet (Zustand {state}); warten Sie, bis es aus ist.',
    },
  ),
  dnssec_ds_present: entry(
    409,
    { en: 'DS record still at the parent', de: 'DS-Eintrag noch bei der übergeordneten Zone' },
    {
      en: 'The parent of {name} still publishes a DS record for it; remove it at the registrar first, or delete with "force=true".',
      de: 'Die übergeordnete Zone von {name} veröffentlicht noch einen DS-Eintrag; entfernen Sie ihn zuerst beim Registrar oder löschen Sie mit "force=true".',
    },
  ),
  conflict: entry(409, { en: 'Conflict', de: 'Konflikt' }, { en: '{reason}', de: '{reason}' }),
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
      de: 'Bei uns ist ein Fehler aufgetreten. Nennen Sie dem Kundendienst die Anfrage-ID (request_id).',
    },
  ),
  not_implemented: entry(501, { en: 'Not implemented', de: 'Nicht implementiert' }, { en: '{reason}', de: '{reason}' }),
  service_unavailable: entry(503, { en: 'Service unavailable', de: 'Dienst nicht verfügbar' }, { en: '{reason}', de: '{reason}' }),
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
    readonly params: ErrorParams = {},
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}${Object.keys(params).length ? ` ${JSON.stringify(params)}` : ''}`);
    this.name = 'DomainError';
  }
}

/** Params of a problem: `reason` and `resource` are keys of their text tables, the rest is shown as given. */
export type ErrorParams = { reason?: ProblemReason; resource?: ResourceNoun } & Record<string, string | number | undefined>;

export const validationFailed = (errors: FieldError[]) => new DomainError('validation_failed', {}, errors);
export const notFound = (resource: ResourceNoun) => new DomainError('not_found', { resource });

const PLACEHOLDER = /\{(\w+)(?::(der|kein):(nom|acc|dat))?\}/g;

export function localise(code: ErrorCode, lang: Language, params: ErrorParams) {
  const e = errorCatalogue[code];
  const value = (key: string, article?: Article, grammaticalCase?: Case): string => {
    const v = params[key];
    if (v === undefined) return '';
    if (key === 'reason') return fill(problemReasons[v as ProblemReason]?.[lang] ?? String(v));
    if (key === 'resource') {
      const n = resourceNouns[v as ResourceNoun];
      if (!n) return String(v);
      if (lang === 'en') return n.en;
      return article && grammaticalCase ? declineGerman(n.de, article, grammaticalCase) : n.de.forms.nom;
    }
    return String(v);
  };
  const fill = (s: string): string =>
    s.replace(PLACEHOLDER, (_, k: string, article?: Article, grammaticalCase?: Case) => value(k, article, grammaticalCase)).trim();
  return { status: e.status, title: e.title[lang], detail: fill(e.detail[lang]) };
}
