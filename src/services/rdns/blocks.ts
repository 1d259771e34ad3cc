// The blocks the service hosts reverse DNS for — the provider's address spaces, their
// assignments, customer prefixes — never overlap but as docs/rdns.md allows (an assignment inside
// its space, a handed-on one inside its parent). Every creation of a block takes one lock and asks
// this one overlap check; each caller answers with its own documented error.
import { type BlockTable, overlappingBlock as overlappingBlockRow } from '../../db/repositories/rdnsRows.js';
import type { Block } from '../../domain/ip/address.js';
import type { WriteContext } from '../writeContext.js';
import { advisoryLock } from '../../db/lockOrder.js';

/** Every creation of a block is placed under this lock: the overlap check and the insert see the same rows. */
export const lockBlocks = (ctx: WriteContext) => advisoryLock(ctx.db, 'rdns_blocks', BLOCKS_LOCK);
export const BLOCKS_LOCK = 'rdns-blocks';

export type { BlockTable };

/** The first block of `tables` (in that order) overlapping `block`, or null. */
export const overlappingBlock = (ctx: WriteContext, block: Block, tables: readonly BlockTable[]) => overlappingBlockRow(ctx.db, block, tables);
