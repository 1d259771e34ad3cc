import type { Knex } from 'knex';
import type { ScopedDb } from '../db/tenantScope.js';
import type { WriteContext as DomainWriteContext } from '../domain/model/writeContext.js';
import type { Actor } from './actor.js';

/** The write context of every service that writes: the request transaction, its scope, actor, clock. */
export type WriteContext = DomainWriteContext<Knex.Transaction, ScopedDb, Actor>;
