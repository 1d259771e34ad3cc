import { domainToUnicode } from 'node:url';
import type { Knex } from 'knex';

// The zone list's `q` is a substring of the A-label or the U-label (spec): PostgreSQL cannot
// decode punycode, so the U-label form is kept beside the name, written once at creation.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('zones', (t) => {
    t.text('unicode_name').nullable();
  });
  const rows = (await knex('zones').where('name', 'like', '%xn--%').select('id', 'name')) as { id: string; name: string }[];
  for (const row of rows)
    await knex('zones')
      .where('id', row.id)
      .update({ unicode_name: domainToUnicode(row.name) || row.name });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('zones', (t) => {
    t.dropColumn('unicode_name');
  });
}
