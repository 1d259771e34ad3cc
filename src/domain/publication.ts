/** Publication state of a change set (spec "States and transitions"). */
export const CHANGESET_STATES = ['pending', 'pushed', 'live', 'failed'] as const;
export type ChangeSetState = (typeof CHANGESET_STATES)[number];

/** What a change set changed: its kind says which write produced it. */
export const CHANGESET_KINDS = ['zone_create', 'zone_settings', 'zone_delete', 'records', 'import', 'template', 'dnssec'] as const;
export type ChangeSetKind = (typeof CHANGESET_KINDS)[number];

/**
 * Where a wait for change sets stands (`Prefer: wait`, src/services/liveWait.ts): a change set's
 * state, or `gone` when it no longer exists (its zone was deleted; change sets go with their zone).
 */
export type LiveWaitState = ChangeSetState | 'gone';

/**
 * The state of several change sets waited for together: `failed` as soon as one failed, `gone`
 * as soon as one is gone (waiting on would be in vain), `live` once all are, otherwise the least
 * advanced (`pending` before `pushed`). A state not read yet counts as `pending`.
 */
export function combinedLiveWaitState(states: readonly (LiveWaitState | undefined)[]): LiveWaitState {
  if (states.includes('failed')) return 'failed';
  if (states.includes('gone')) return 'gone';
  if (states.every((s) => s === 'live')) return 'live';
  return states.some((s) => s === 'pending' || s === undefined) ? 'pending' : 'pushed';
}

/** A wait ends at these: nothing more will happen to the change sets without a new write or retry. */
export const isSettled = (state: LiveWaitState): boolean => state === 'live' || state === 'failed' || state === 'gone';
