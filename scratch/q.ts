import { openDatabase } from '../src/adapters/db/open-database.ts';
import { findUserById } from '../src/adapters/db/repositories/users.repository.ts';
const h = openDatabase({ databaseUrl: undefined, dataDir: '/tmp/pc/data' });
const id = (await h.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
for (let r = 0; r < 4; r++) {
  const t = performance.now();
  for (let i = 0; i < 20000; i++) await findUserById(h.db, id);
  console.log(((performance.now() - t) / 20000 * 1000).toFixed(1), 'us');
}
