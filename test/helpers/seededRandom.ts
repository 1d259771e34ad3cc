// One seeded generator for the tests that draw random cases (a failure is replayed from its
// seed): mulberry32, the one the benchmarks use for their query files.
export { seededRandom as mulberry32 } from '../../bench/lib/dnsBenchZone.js';
