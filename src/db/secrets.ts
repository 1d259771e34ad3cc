import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * A secret shared by every process of the deployment (cursor signing keys), created once on
 * first use. The first writer wins; everyone reads the stored value.
 */
export async function sharedSecret(db: Knex, name: string): Promise<Buffer> {
  await db('service_secrets')
    .insert({ name, value: randomBytes(32) })
    .onConflict('name')
    .ignore();
  const row = await db('service_secrets').where({ name }).first('value');
  return row.value as Buffer;
}
