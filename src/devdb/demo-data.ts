// Demo content for `npm run demo`: the ZoneMinder database `zm` with a `zmuser` account.
// It grows as the schema, REST and media parts land.
import type { ThrowawayMariaDb } from './throwaway-mariadb.js';

export async function prepareDemoDatabase(db: ThrowawayMariaDb): Promise<void> {
  await db.createDatabase('zm');
  await db.createUser('zmuser', 'zmpass', 'zm');
}
