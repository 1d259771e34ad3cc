// What the service deletes because it is old (docs/operations.md "Retention"), in one list. The
// maintenance job runs it once a minute; each rule deletes a batch at a time, found through an
// index on its age, so a run never holds a table long nor reads it whole, and a backlog (the job
// stopped a while, or a burst of dynamic DNS updates a month ago) drains over a few runs.
import type { Knex } from 'knex';

const DAY_MS = 24 * 3600_000;

/** How long each kind of row is kept (the documented figures). */
const RETENTION = {
  /** Events, with their webhook deliveries and attempts, once no delivery of theirs is pending. */
  eventsDays: 30,
  /** Mail handed to the SMTP server; unsent mail (no SMTP_URL: the lab's inbox) stays queued. */
  sentMailDays: 30,
  /**
   * Change sets that are `live`, except each zone's newest (its publication summary). A record
   * whose last change set is gone shows `publication.state: live` (services/zoneReads.ts).
   */
  changeSetsDays: 90,
  /** Audit log entries: over a year, so that last year's same month can still be looked up. */
  auditLogDays: 400,
} as const;

/** Rows one statement deletes at most. */
const BATCH = 5000;

interface Rule {
  name: string;
  days: number;
  /** A DELETE of at most `?` (the batch) rows older than `?` (the cutoff), in that order of parameters. */
  sql: string;
}

const RULES: Rule[] = [
  {
    name: 'deleted_zone_exports',
    // Each carries its expiry, set when its zone was deleted (30 days, spec; services/zones.ts).
    days: 0,
    sql: `DELETE FROM deleted_zone_exports WHERE id IN (SELECT id FROM deleted_zone_exports WHERE expires_at <= ? LIMIT ?)`,
  },
  {
    name: 'events',
    days: RETENTION.eventsDays,
    // A pending delivery (a disabled webhook's, resumed when it is enabled) keeps its event.
    sql: `DELETE FROM events WHERE id IN (
            SELECT e.id FROM events e
            WHERE e.occurred_at < ? AND NOT e.awaiting_dispatch
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state = 'pending')
            ORDER BY e.occurred_at LIMIT ?)`,
  },
  {
    name: 'mail_outbox',
    days: RETENTION.sentMailDays,
    sql: `DELETE FROM mail_outbox WHERE id IN (SELECT id FROM mail_outbox WHERE sent_at < ? LIMIT ?)`,
  },
  {
    name: 'change_sets',
    days: RETENTION.changeSetsDays,
    sql: `DELETE FROM change_sets WHERE id IN (
            SELECT c.id FROM change_sets c
            WHERE c.created_at < ? AND c.state = 'live'
              AND NOT EXISTS (SELECT 1 FROM zones z WHERE z.id = c.zone_id AND z.last_changeset_id = c.id)
            ORDER BY c.created_at LIMIT ?)`,
  },
  {
    name: 'audit_log',
    days: RETENTION.auditLogDays,
    sql: `DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?)`,
  },
];

/**
 * Deletes what is past its retention at `now`: a batch of each rule in turn, again for the rules
 * whose batch was full, until none is or `budgetMs` has passed (the next run goes on, so a backlog
 * of one table does not starve the others). Returns the rows deleted per table.
 */
export async function deleteExpiredRows(db: Knex, now: Date, budgetMs = 10_000): Promise<Record<string, number>> {
  const until = performance.now() + budgetMs;
  const deleted: Record<string, number> = {};
  for (let rules = RULES; rules.length && performance.now() < until; ) {
    const full: Rule[] = [];
    for (const rule of rules) {
      const { rowCount } = (await db.raw(rule.sql, [new Date(now.getTime() - rule.days * DAY_MS), BATCH])) as { rowCount: number };
      if (rowCount) deleted[rule.name] = (deleted[rule.name] ?? 0) + rowCount;
      if (rowCount === BATCH) full.push(rule);
    }
    rules = full;
  }
  return deleted;
}
