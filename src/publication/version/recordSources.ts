// The build's rendered-record sources, in the order their records are rendered. The one place a
// source is registered: a new one (its read in a repository, its render beside its feature)
// is added to this list and touches no other source and no step of the build.
import { catalogSource } from '../../catalog/catalogSource.js';
import { keySetSource } from '../../dnssec/keySetSource.js';
import { defaultPtrSource } from '../../rdns/defaultPtrSource.js';
import { apexSource } from './apexSource.js';
import type { Transaction } from '../../db/context.js';
import type { BuildZone } from '../../db/repositories/versionStore.js';
import type { RecordSource, RenderedInputs } from '../../versionRecords/recordSource.js';

export const RECORD_SOURCES: readonly RecordSource[] = [apexSource, keySetSource, defaultPtrSource, catalogSource];

/** Each applying source's inputs for this zone, by name (a source with nothing to render, or nothing to read, is left out). */
export async function readRenderedInputs(trx: Transaction, zone: BuildZone): Promise<RenderedInputs> {
  const inputs: RenderedInputs = {};
  for (const source of RECORD_SOURCES) {
    if (!source.read || !source.appliesTo(zone)) continue;
    const read = await source.read(trx, zone);
    if (read !== null) inputs[source.name] = read;
  }
  return inputs;
}
