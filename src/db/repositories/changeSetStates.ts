// Where change sets stand, for whoever waits until they are live (src/services/liveWait.ts).
import type { ChangeSetState } from '../../domain/publication.js';
import type { Runner } from '../context.js';

/** The state and zone of each change set that still exists, among `ids`. */
export const changeSetStates = (db: Runner, ids: readonly string[]): Promise<{ id: string; zone_id: string; state: ChangeSetState }[]> =>
  db('change_sets')
    .whereRaw('id = ANY(?)', [ids as string[]])
    .select('id', 'zone_id', 'state');
