import { createTestDatabase } from '../test/support/databases.ts';
import { createUser } from '../src/services/accounts.service.ts';
import { postLedgerEntryAlone } from '../src/services/ledger.service.ts';
import { findUserById } from '../src/adapters/db/repositories/users.repository.ts';
for (let i = 0; i < 300; i++) {
  const { db, dispose } = await createTestDatabase('sqlite');
  const user = await createUser(db.handle.db, { balanceMicro: 1_000_000 });
  const c = await postLedgerEntryAlone(db.handle.db, { userId: user.id, kind: 'credit', reference: `${user.id}:a`, amountMicro: 250_000 });
  const d = await postLedgerEntryAlone(db.handle.db, { userId: user.id, kind: 'generation_debit', reference: 'task_1', amountMicro: -1_100_000 });
  const after = await findUserById(db.handle.db, user.id);
  if (after?.balance_micro !== 150_000) { console.log('MISMATCH', i, after?.balance_micro, c, d); }
  await dispose();
}
console.log('done');
