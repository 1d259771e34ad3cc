// Dependencies point inward (../shared/STYLE.md, docs/architecture.md). `npm run depcheck`.
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'domain-is-pure',
      comment: 'Domain rules import no Koa, Knex, pg, dns2, logger, nor any outer layer.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: ['^node_modules/(koa|@koa|koa-body|knex|pg|dns2|pino|prom-client)/', '^src/(api|db|services|lab|billing|observability|config)/'] },
    },
    {
      name: 'api-never-queries',
      comment: 'The API layer reaches the database only through services and repositories, never Knex or pg.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: ['^node_modules/(knex|pg)/', '^src/db/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-know-no-http',
      severity: 'error',
      from: { path: '^src/(services|db|domain)/' },
      to: { path: ['^node_modules/(koa|@koa|koa-body)/', '^src/api/'] },
    },
    {
      name: 'nameserver-is-separate',
      comment: 'The nameserver is handed snapshots; it knows nothing of Koa, Knex, tenants or the API.',
      severity: 'error',
      from: { path: '^nameserver/' },
      to: { path: ['^node_modules/(koa|@koa|koa-body|knex|pg)/', '^src/(api|db|services)/'] },
    },
    {
      name: 'migrations-stand-alone',
      severity: 'error',
      from: { path: '^migrations/' },
      to: { path: '^src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
  },
};
