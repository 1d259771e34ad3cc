// The webhook resources' statements (docs/webhooks.md): the registrations as their owner sees
// them, through the acting tenant's ScopedDb (a webhook outside the subtree does not exist here),
// and the delivery log with its attempts. The delivery worker's statements are webhookRows.ts.
import type { Transaction } from '../context.js';
import { noteLock } from '../lockOrder.js';
import { paginate } from '../paginate.js';
import type { ScopedDb } from '../tenantScope.js';

export type DisabledReason = 'failing_deliveries' | 'manual';

export type WebhookRow = {
  id: string;
  tenant_id: string;
  scope: 'subtree' | 'tenant';
  url: string;
  events: string[];
  description: string;
  state: 'active' | 'disabled';
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: DisabledReason | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = [
  'id',
  'tenant_id',
  'scope',
  'url',
  'events',
  'description',
  'state',
  'failing_since',
  'disabled_at',
  'disabled_reason',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
];

export const insertWebhook = (scoped: ScopedDb, row: Record<string, unknown>) => scoped.insert('webhooks', row);

/** The webhook's row; `lock`: locked FOR UPDATE for the rest of that transaction. */
export async function webhookRow(scoped: ScopedDb, id: string, lock: Transaction | null): Promise<WebhookRow | undefined> {
  const q = scoped.from('webhooks').where('id', id).first(COLUMNS);
  if (lock) {
    noteLock(lock, 'webhooks');
    q.forUpdate();
  }
  return (await q) as WebhookRow | undefined;
}

export const pageWebhooks = (scoped: ScopedDb, after: unknown[] | null, limit: number) =>
  paginate<WebhookRow>(scoped.from('webhooks').select(COLUMNS), [{ column: 'id', direction: 'asc', field: 'id' }], after, limit);

export async function updateWebhookRow(scoped: ScopedDb, id: string, changes: Record<string, unknown>): Promise<void> {
  await scoped.from('webhooks').where('id', id).update(changes);
}

export async function deleteWebhookRow(scoped: ScopedDb, id: string): Promise<void> {
  await scoped.from('webhooks').where('id', id).delete();
}

export type DeliveryRow = {
  id: string;
  event_id: string;
  kind: string;
  state: 'pending' | 'delivered' | 'failed';
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  attempts: {
    attempt: number;
    started_at: string;
    duration_ms: number;
    outcome: string;
    response_status: number | null;
    error: string | null;
    next_attempt_at: string | null;
  }[];
};

/**
 * The webhook's deliveries, newest first, each with its attempts: one statement, so a delivery
 * and its attempts are read in one snapshot (never "8 attempts" beside a state of before the 8th).
 */
export function pageDeliveries(scoped: ScopedDb, webhookId: string, filter: { state?: string; id?: string }, after: unknown[] | null, limit: number) {
  const q = scoped
    .from('webhooks', 'w')
    .join('webhook_deliveries as d', 'd.webhook_id', 'w.id')
    .joinRaw(
      `CROSS JOIN LATERAL (SELECT coalesce(jsonb_agg(to_jsonb(a) ORDER BY a.attempt), '[]') AS attempts FROM webhook_attempts a WHERE a.delivery_id = d.id) att`,
    )
    .where('w.id', webhookId)
    .select('d.id', 'd.event_id', 'd.kind', 'd.state', 'd.next_attempt_at', 'd.created_at', 'd.completed_at', 'att.attempts');
  if (filter.state) q.where('d.state', filter.state);
  if (filter.id) q.where('d.id', filter.id);
  return paginate<DeliveryRow>(
    q,
    [
      { column: 'd.created_at', direction: 'desc', field: 'created_at' },
      { column: 'd.id', direction: 'desc', field: 'id' },
    ],
    after,
    limit,
  );
}

/** How many of the subtree's webhooks are in each state. */
export async function webhookStateCounts(scoped: ScopedDb): Promise<Record<string, number>> {
  const rows = (await scoped.from('webhooks').select('state').count({ n: '*' }).groupBy('state')) as { state: string; n: number | string }[];
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}
