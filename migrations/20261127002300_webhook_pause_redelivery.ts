import type { Knex } from 'knex';

// A webhook paused by its owner and a delivery sent again by hand (docs/webhooks.md "Pause and
// redelivery"). `disabled_reason` tells who disabled a webhook: the service after three days of
// failures, or its owner. `final_attempt` is the attempt after which a delivery ends: null for
// the schedule's eighth; a redelivery of a finished delivery sets it to the one attempt it adds.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE webhooks ADD CONSTRAINT webhooks_disabled_reason_check CHECK (disabled_reason IN ('failing_deliveries', 'manual'))`);
  await knex.raw('ALTER TABLE webhook_deliveries ADD COLUMN final_attempt integer');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries DROP COLUMN IF EXISTS final_attempt');
  await knex.raw('ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_disabled_reason_check');
}
