// Every migration, in order. Listed statically (not discovered from the directory) so the same
// code path runs under tsx, vitest and the knex CLI; a unit test checks the list against the files.
import type { Knex } from 'knex';
import * as foundation from './20261122000100_foundation.js';
import * as zones from './20261122000200_zones_records_changesets.js';
import * as templates from './20261122000300_templates.js';
import * as publication from './20261122000400_publication.js';
import * as rowVersions from './20261124000100_row_versions_event_outbox.js';
import * as zoneUnicodeName from './20261124000200_zone_unicode_name.js';
import * as renderedSystemRecords from './20261124000300_rendered_system_records.js';
import * as fasterNewId from './20261125000100_faster_new_id.js';
import * as labParentZones from './20261125000200_lab_parent_zones.js';
import * as dnssec from './20261125000300_dnssec.js';
import * as reverseDns from './20261125000400_reverse_dns.js';
import * as prefixes from './20261125000600_prefixes.js';
import * as managedRecords from './20261125000750_managed_records.js';
import * as backendReadings from './20261125000700_backend_readings.js';
import * as dyndns from './20261125000800_dyndns.js';
import * as ipSpaceDnssec from './20261125002000_ip_space_dnssec.js';
import * as ipSpaceForwardZone from './20261125002100_ip_space_forward_zone.js';
import * as webhooks from './20261125000900_webhooks.js';
import * as forwardRecordJobs from './20261125004000_forward_record_jobs.js';
import * as eventsActingTenant from './20261125004100_events_acting_tenant.js';
import * as changeSetActingTenant from './20261126000100_change_set_acting_tenant.js';
import * as retention from './20261126020000_retention.js';
import * as webhookPauseRedelivery from './20261127002300_webhook_pause_redelivery.js';
import * as eventFeedPosition from './20261127002305_event_feed_position.js';
import * as eventFeedIndexes from './20261127002310_event_feed_indexes.js';
import * as secondarySets from './20261128030000_secondary_sets.js';
import * as catalogStamps from './20261128040000_catalog_stamps.js';
import * as secondaryLag from './20261128050000_secondary_lag.js';
import * as zoneNameSerials from './20261128060000_zone_name_serials.js';
import * as secondarySetSelection from './20261128070000_secondary_set_selection.js';
import * as catalogListings from './20261128080000_catalog_listings.js';
import * as tsigKeysCredentialPolicies from './20261128002400_tsig_keys_credential_policies.js';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
  /** `transaction: false`: run outside a transaction (CREATE INDEX CONCURRENTLY). */
  config?: { transaction?: boolean };
}

export const migrations: Record<string, Migration> = {
  '20261122000100_foundation': foundation,
  '20261122000200_zones_records_changesets': zones,
  '20261122000300_templates': templates,
  '20261122000400_publication': publication,
  '20261124000100_row_versions_event_outbox': rowVersions,
  '20261124000200_zone_unicode_name': zoneUnicodeName,
  '20261124000300_rendered_system_records': renderedSystemRecords,
  '20261125000100_faster_new_id': fasterNewId,
  '20261125000200_lab_parent_zones': labParentZones,
  '20261125000300_dnssec': dnssec,
  '20261125000400_reverse_dns': reverseDns,
  '20261125000600_prefixes': prefixes,
  '20261125000700_backend_readings': backendReadings,
  '20261125000750_managed_records': managedRecords,
  '20261125000800_dyndns': dyndns,
  '20261125002000_ip_space_dnssec': ipSpaceDnssec,
  '20261125002100_ip_space_forward_zone': ipSpaceForwardZone,
  '20261125000900_webhooks': webhooks,
  '20261125004000_forward_record_jobs': forwardRecordJobs,
  '20261125004100_events_acting_tenant': eventsActingTenant,
  '20261126000100_change_set_acting_tenant': changeSetActingTenant,
  '20261126020000_retention': retention,
  '20261127002300_webhook_pause_redelivery': webhookPauseRedelivery,
  '20261127002305_event_feed_position': eventFeedPosition,
  '20261127002310_event_feed_indexes': eventFeedIndexes,
  '20261128002400_tsig_keys_credential_policies': tsigKeysCredentialPolicies,
  '20261128030000_secondary_sets': secondarySets,
  '20261128040000_catalog_stamps': catalogStamps,
  '20261128050000_secondary_lag': secondaryLag,
  '20261128060000_zone_name_serials': zoneNameSerials,
  '20261128070000_secondary_set_selection': secondarySetSelection,
  '20261128080000_catalog_listings': catalogListings,
};
