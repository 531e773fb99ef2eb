// Property-based: random event sets (archived, unfinished, per monitor, per storage, DoDelete 0/1,
// every scheme) and random limits, on the real database and real folders. After a dry run nothing
// changed at all; after a pass no protected event is gone, every deletion had a breached limit
// when it was made, and deletions went oldest first within each Storage.
import test from 'ava';
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../../src/config/types.js';
import type { RetentionOverride } from '../../src/config/units.js';
import { processTimeZone, ZoneClock } from '../../src/db/zone-clock.js';
import type { PrismaClient } from '../../src/db/prisma.js';
import { dirBytes, RetentionPass } from '../../src/features/retention/retention-pass.js';
import type { VolumeMeter } from '../../src/features/retention/retention-storage.js';
import { createLogger } from '../../src/log.js';
import { EventDeletion } from '../../src/zm/event-deletion.js';
import { insertStorage, prismaFor, sql } from '../helpers/events.js';
import type { FreshDatabase } from '../helpers/mariadb.js';
import { rowChecksums, seedTreeEvent, treeListing, wallDaysBefore, type SeededEvent } from '../helpers/retention.js';
import { zmDatabase } from '../helpers/zmdb.js';

let db: FreshDatabase;
let prisma: PrismaClient;
let base: string;
const log = createLogger({ level: 'fatal' });
const clock = new ZoneClock(processTimeZone());
const SCHEMES = ['Deep', 'Medium', 'Shallow'] as const;

test.before(async () => {
  db = await zmDatabase('retprop');
  prisma = prismaFor(db);
  base = mkdtempSync(path.join(tmpdir(), 'zmgate-retprop-'));
});
test.after.always(async () => prisma?.$disconnect());

const storageArb = fc.record({ doDelete: fc.constantFrom(0, 1, 1), scheme: fc.constantFrom(...SCHEMES) });
const eventArb = fc.record({
  storage: fc.nat(2),
  monitor: fc.integer({ min: 1, max: 3 }),
  days: fc.integer({ min: 0, max: 90 }),
  // Ties on StartDateTime happen: the Id decides.
  seconds: fc.constantFrom(0, 0, 1, 3600),
  archived: fc.integer({ min: 0, max: 4 }).map((n) => (n === 0 ? 1 : 0)),
  open: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  diskSpace: fc.option(fc.integer({ min: 0, max: 50_000 }), { freq: 5 }),
  blocks: fc.integer({ min: 1, max: 8 }),
});
const limitsArb = fc.record({
  maxAge: fc.constantFrom('', '10d', '30d', '60d'),
  quota: fc.option(fc.integer({ min: 0, max: 300_000 }), { freq: 2 }),
  /** The floor as a fraction of the storage's folders' bytes, on top of the free space at start. */
  floor: fc.option(fc.double({ min: 0, max: 1.2, noNaN: true }), { freq: 2 }),
});

interface Seeded {
  storages: Array<{ id: number; root: string; doDelete: number }>;
  events: Array<
    SeededEvent & { storageId: number; start: string; archived: number; open: boolean; diskSpace: number | null }
  >;
}

let runNo = 0;
async function seed(storages: Array<{ doDelete: number; scheme: string }>, events: Array<any>): Promise<Seeded> {
  for (const table of ['Events', 'Frames', 'Storage', 'Monitors', 'Event_Summaries'])
    await sql(db, `DELETE FROM ${table}`);
  rmSync(base, { recursive: true, force: true });
  const run = runNo++;
  const out: Seeded = { storages: [], events: [] };
  for (const [i, s] of storages.entries()) {
    const id = i + 1;
    const root = path.join(base, `r${run}`, `s${id}`);
    mkdirSync(root, { recursive: true });
    await insertStorage(db, { id, path: root, scheme: s.scheme, doDelete: s.doDelete });
    out.storages.push({ id, root, doDelete: s.doDelete });
  }
  const now = clock.now();
  for (const e of events) {
    const storage = out.storages[e.storage % out.storages.length];
    const start = wallDaysBefore(now, e.days, e.seconds);
    const seeded = await seedTreeEvent(db, storage.root, {
      monitorId: e.monitor,
      storageId: storage.id,
      start,
      end: e.open ? null : start,
      scheme: storages[storage.id - 1].scheme as (typeof SCHEMES)[number],
      archived: e.archived,
      diskSpace: e.diskSpace,
      fill: e.blocks * 4096,
    });
    out.events.push({
      ...seeded,
      storageId: storage.id,
      start,
      archived: e.archived,
      open: e.open,
      diskSpace: e.diskSpace,
    });
  }
  return out;
}

const meter: VolumeMeter = async (dir) => {
  // Each storage is its own volume of 10 MB; its used part is what its folder holds now.
  const used = await dirBytes(dir);
  return { free: 10_000_000 - used, total: 10_000_000 };
};

test('random events and limits: dry run writes nothing; the pass keeps every guarantee', async (t) => {
  const totals = { deleted: 0, kept: 0, limits: new Set<string>() };
  await fc.assert(
    fc.asyncProperty(
      fc.array(storageArb, { minLength: 1, maxLength: 3 }),
      fc.array(eventArb, { maxLength: 18 }),
      limitsArb,
      async (storages, events, limits) => {
        const seeded = await seed(storages, events);
        const overrides: RetentionOverride[] = [];
        if (limits.floor !== null) {
          for (const s of seeded.storages) {
            const used = await dirBytes(s.root);
            overrides.push({
              storage: String(s.id),
              free_space_floor: String(Math.max(1, 10_000_000 - used + Math.round(limits.floor * used))),
            });
          }
        }
        const config: AppConfig['retention'] = {
          enabled: true,
          interval_seconds: 300,
          free_space_floor: '',
          max_age: limits.maxAge,
          quota: limits.quota === null ? '' : String(Math.max(1, limits.quota)),
          overrides,
        };
        const deps = {
          prisma,
          config,
          defaultEventsDir: path.join(base, 'default'),
          log,
          clock: async () => clock,
          volume: meter,
        };

        // Dry run: nothing at all changes.
        const rows = await rowChecksums(db);
        const tree = treeListing(base);
        await new RetentionPass({ ...deps, deletion: null }).run({ dryRun: true });
        t.deepEqual(await rowChecksums(db), rows);
        t.deepEqual(treeListing(base), tree);

        const wallNow = clock.now();
        const report = await new RetentionPass({
          ...deps,
          deletion: new EventDeletion(prisma, deps.defaultEventsDir, log),
        }).run();
        t.is(report.outcome, 'completed', report.error ?? '');
        totals.deleted += report.deleted;
        totals.kept += report.storages.reduce((n, x) => n + x.kept, 0);
        for (const d of report.deletions) totals.limits.add(d.limit);

        const remaining = new Set((await sql(db, 'SELECT Id FROM Events')).map((r: any) => Number(r.Id)));
        const deleted = new Set(report.deletions.map((d) => d.event_id));
        // The database and the report agree, and so do the folders.
        for (const e of seeded.events) {
          t.is(remaining.has(e.id), !deleted.has(e.id), `event ${e.id}: row vs report`);
          t.is(existsSync(e.eventDir), !deleted.has(e.id), `event ${e.id}: folder vs report`);
        }
        // Newest of each monitor by (StartDateTime, Id).
        const newest = new Map<number, { start: string; id: number }>();
        for (const e of seeded.events) {
          const n = newest.get(e.monitorId);
          if (!n || e.start > n.start || (e.start === n.start && e.id > n.id))
            newest.set(e.monitorId, { start: e.start, id: e.id });
        }
        for (const e of seeded.events) {
          const protectedWhy = e.archived
            ? 'archived'
            : e.open
              ? 'open'
              : newest.get(e.monitorId)?.id === e.id
                ? 'newest of its monitor'
                : seeded.storages[e.storageId - 1].doDelete === 0
                  ? 'DoDelete=0'
                  : null;
          if (protectedWhy) t.true(remaining.has(e.id), `event ${e.id} (${protectedWhy}) must survive`);
        }
        // Every deletion had a breached limit at that moment; oldest first within a Storage.
        const maxAgeSeconds = limits.maxAge ? Number(limits.maxAge.slice(0, -1)) * 86400 : null;
        const quota = config.quota === '' ? null : Number(config.quota);
        const usedBy = new Map<number, number>();
        for (const e of seeded.events) usedBy.set(e.storageId, (usedBy.get(e.storageId) ?? 0) + (e.diskSpace ?? 0));
        const lastBy = new Map<number, { start: string; id: number }>();
        for (const d of report.deletions) {
          const e = seeded.events.find((x) => x.id === d.event_id)!;
          const why: string[] = [];
          if (maxAgeSeconds !== null && e.start < wallDaysBefore(wallNow, 0, maxAgeSeconds - 120)) why.push('max_age');
          if (quota !== null && (usedBy.get(e.storageId) ?? 0) > quota) why.push('quota');
          if (d.floor_bytes !== null && d.free_bytes_before !== null && d.free_bytes_before < d.floor_bytes)
            why.push('free_space_floor');
          t.true(
            why.includes(d.limit),
            `deletion of ${d.event_id} named ${d.limit}, breached: ${why.join(',') || 'none'}`,
          );
          usedBy.set(e.storageId, (usedBy.get(e.storageId) ?? 0) - (e.diskSpace ?? 0));
          const last = lastBy.get(e.storageId);
          t.true(
            !last || last.start < e.start || (last.start === e.start && last.id < e.id),
            `oldest first in storage ${e.storageId}`,
          );
          lastBy.set(e.storageId, { start: e.start, id: e.id });
        }
      },
    ),
    { numRuns: 30, seed: 17 },
  );
  // The runs exercised deletions by every limit and protections (a property over no-ops proves nothing).
  t.true(totals.deleted > 10, `deleted ${totals.deleted}`);
  t.true(totals.kept > 0);
  t.deepEqual([...totals.limits].sort(), ['free_space_floor', 'max_age', 'quota']);
});
