/**
 * Prints PostgreSQL's functions of the per-key spend rule (src/adapters/db/ledger/key-spend-rule.ts),
 * the body of a new migration when the rule changes (test/unit/db/key-spend-rule.test.ts checks that
 * the newest migration defining them holds exactly this text):
 *   node scripts/print-key-spend-functions.ts >> src/adapters/db/migrations/postgres/NNN_name.sql
 */
import { postgresKeySpendFunctions } from '../src/adapters/db/ledger/key-spend-rule.ts';

process.stdout.write(postgresKeySpendFunctions());
