/** Publication state of a change set (spec "States and transitions"). */
export const CHANGESET_STATES = ['pending', 'pushed', 'live', 'failed'] as const;
export type ChangeSetState = (typeof CHANGESET_STATES)[number];

/** What a change set changed: its kind says which write produced it. */
export const CHANGESET_KINDS = ['zone_create', 'zone_settings', 'zone_delete', 'records', 'import', 'template', 'dnssec'] as const;
export type ChangeSetKind = (typeof CHANGESET_KINDS)[number];
