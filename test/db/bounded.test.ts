// The gate of src/db/bounded.ts against a server that answers: a statement that takes longer
// than the stall time is slow, not stuck. The probe it causes is answered, so the statement
// runs to its end and the gate stays open. (A server that does not answer:
// test/hardening/db-frozen-gate.test.ts.)
import test from 'ava';
import { DbGate, STALL_MS } from '../../src/db/bounded.js';
import { createPool } from '../../src/db/pool.js';
import { dbConfigFor, freshDatabase } from '../helpers/mariadb.js';

test('a statement slower than the stall time on a server that answers runs to its end; the gate stays open', async (t) => {
  const gate = new DbGate();
  const fresh = await freshDatabase('bounded_slow');
  const connections = async () => Number((await fresh.db.query("SHOW GLOBAL STATUS LIKE 'Connections'"))[0].Value);
  const pool = createPool(dbConfigFor(fresh, { query_timeout_secs: 30 }), gate);
  try {
    const before = await connections();
    const seconds = (3 * STALL_MS) / 1000;
    let closedMeanwhile = false;
    const watcher = setInterval(() => (closedMeanwhile ||= gate.closed), 20);
    try {
      // Probed about three times while it sleeps, on the pool directly and on a taken connection.
      const [direct] = await pool.query(`SELECT SLEEP(${seconds}) AS s`);
      t.is(Number(direct.s), 0, 'SLEEP ran to its end (1 would mean it was interrupted)');
      const conn = await pool.getConnection();
      try {
        const [taken] = await conn.query(`SELECT SLEEP(${seconds}) AS s`);
        t.is(Number(taken.s), 0);
      } finally {
        await conn.release();
      }
    } finally {
      clearInterval(watcher);
    }
    // The pool's one connection, the one reading the count (the helper connects per query), and
    // the probes' (one each, at least one per statement).
    const opened = (await connections()) - before;
    t.log(`${opened} connections opened`);
    t.true(opened >= 4, `the server was probed while the statements ran (${opened} connections)`);
    t.false(closedMeanwhile, 'the gate never closed');
    t.false(gate.closed);
  } finally {
    await pool.end();
  }
});
