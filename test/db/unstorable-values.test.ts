// A value a column cannot hold at all, as MariaDB refuses it in strict mode (the mode zmgate's
// connections use): an ENUM value the column lacks (1265) or a number beyond the column's range
// (1264), from a real server through the real driver. The client is told 400 naming the column,
// never a 500 (docs/zoneminder/coexistence.md: an older ZoneMinder's narrower columns).
import test from 'ava';
import { createConnection } from 'mariadb';
import { toApiError } from '../../src/db/to-api-error.js';
import { freshDatabase, type FreshDatabase } from '../helpers/mariadb.js';

let db: FreshDatabase;

test.before(async () => {
  db = await freshDatabase('unstorable');
  await db.db.exec(
    "CREATE TABLE Narrow (Id int PRIMARY KEY, Monitors enum('None','View','Edit') NOT NULL DEFAULT 'None', Width smallint unsigned NOT NULL DEFAULT 0)",
    db.name,
  );
});

async function refusal(sql: string): Promise<unknown> {
  const conn = await createConnection({ ...db.userConfig, sessionVariables: { sql_mode: 'STRICT_ALL_TABLES' } });
  try {
    await conn.query(sql);
  } catch (err) {
    return err;
  } finally {
    await conn.end();
  }
  throw new Error(`not refused: ${sql}`);
}

test('an ENUM value the column lacks is a 400 naming the column', async (t) => {
  const api = toApiError(await refusal("INSERT INTO Narrow (Id, Monitors) VALUES (1, 'Create')"));
  t.is(api.status, 400);
  t.like(api.toEnvelope(), { kind: 'INVALID_INPUT_ERROR', details: [['field', 'Monitors']] });
});

test("a number beyond the column's range is a 400 naming the column", async (t) => {
  const api = toApiError(await refusal('INSERT INTO Narrow (Id, Width) VALUES (2, 70000)'));
  t.is(api.status, 400);
  t.like(api.toEnvelope(), { kind: 'INVALID_INPUT_ERROR', details: [['field', 'Width']] });
  t.false(JSON.stringify(api.toEnvelope()).includes('INSERT'), 'no SQL in the answer');
});
