// For the knex CLI: NODE_OPTIONS='--import tsx' npx knex migrate:latest --knexfile knexfile.ts
// (npm run migrate). The service itself migrates at start.
import { knexConfig } from './src/db/knex.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must be set for the knex CLI');

export default knexConfig(url);
