import type { Knex } from 'knex';

// Webhooks (docs/webhooks.md): registrations, one delivery per (event, webhook) with its attempts,
// and the mail outbox (a disabled webhook's notice to the tenant's support contact).
//
// `events.awaiting_dispatch` is the outbox's delivery bookkeeping: the dispatcher takes rows with
// it set (FOR UPDATE SKIP LOCKED), writes their deliveries and clears it in one transaction, so an
// event committed late (a smaller seq behind one already read) is still dispatched. Existing
// rows get false (the column is added with that default, which costs no rewrite), new rows true.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE events ADD COLUMN awaiting_dispatch boolean NOT NULL DEFAULT false');
  await knex.raw('ALTER TABLE events ALTER COLUMN awaiting_dispatch SET DEFAULT true');
  await knex.raw('CREATE INDEX events_awaiting_dispatch ON events (seq) WHERE awaiting_dispatch');

  await knex.schema.createTable('webhooks', (t) => {
    t.text('id').primary();
    // The owner: the acting tenant at creation.
    t.text('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    // 'subtree': created without X-Act-As-Customer, receives the owner's whole subtree's events;
    // 'tenant': created acting for a customer, receives that customer's events only.
    t.text('scope').notNullable();
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('state').notNullable().defaultTo('active');
    // Sealed (AES-256-GCM under the service's key-encryption key): signing needs the secret itself.
    t.binary('secret').notNullable();
    t.binary('previous_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    // First failed attempt since the last success; null while deliveries succeed.
    t.timestamp('failing_since', { useTz: true });
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['tenant_id']);
  });
  await knex.raw(`ALTER TABLE webhooks ADD CONSTRAINT webhooks_state_check CHECK (state IN ('active', 'disabled'))`);
  await knex.raw(`ALTER TABLE webhooks ADD CONSTRAINT webhooks_scope_check CHECK (scope IN ('subtree', 'tenant'))`);
  await knex.raw("CREATE INDEX webhooks_failing ON webhooks (failing_since) WHERE failing_since IS NOT NULL AND state = 'active'");

  await knex.schema.createTable('webhook_deliveries', (t) => {
    // Sent as Service-Delivery: the same on every attempt of this event to this webhook.
    t.text('id').primary();
    t.text('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.text('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('state').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    // When the next attempt is due; while an attempt runs, when its lease runs out.
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.unique(['webhook_id', 'event_id']);
    t.index(['webhook_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_state_check CHECK (state IN ('pending', 'delivered', 'failed'))`);
  await knex.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'`);

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.text('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.text('outcome').notNullable();
    t.integer('response_status');
    t.text('error');
    t.timestamp('next_attempt_at', { useTz: true });
    t.primary(['delivery_id', 'attempt']);
  });

  await knex.schema.createTable('mail_outbox', (t) => {
    t.text('id').primary();
    t.text('tenant_id').references('tenants.id').onDelete('CASCADE');
    t.text('to_address').notNullable();
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // Handed to the SMTP server (production) or kept for the lab's endpoint (sent at creation).
    t.timestamp('sent_at', { useTz: true });
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.text('last_error');
  });
  await knex.raw('CREATE INDEX mail_outbox_unsent ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mail_outbox');
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.dropTableIfExists('webhooks');
  await knex.raw('DROP INDEX IF EXISTS events_awaiting_dispatch');
  await knex.raw('ALTER TABLE events DROP COLUMN IF EXISTS awaiting_dispatch');
}
