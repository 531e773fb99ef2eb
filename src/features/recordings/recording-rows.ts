// The Events rows a coverage answer needs, through the driver pool (dates as stored text).
// Every read is an index range (docs/recordings.md, "Which rows are read"): on 1.39's
// (MonitorId, StartDateTime) directly; on 1.36/1.38, which index the two columns apart, MariaDB
// picks StartDateTime's range or MonitorId's. `bench/recordings.ts` prints the plans.
import type { Pool } from 'mariadb';
import type { CoverageRow } from './coverage.js';

export type RecordingRowsDb = Pick<Pool, 'query'>;

export interface MonitorRow extends CoverageRow {
  MonitorId: number;
}

const COLUMNS =
  'Id, MonitorId, StorageId, StartDateTime, EndDateTime, Length, Frames, AlarmFrames, MaxScore, DefaultVideo';

export class RecordingRows {
  constructor(private readonly db: RecordingRowsDb) {}

  /** Which of `ids` exist as monitors. */
  async existing(ids: number[]): Promise<Set<number>> {
    const rows = (await this.db.query(
      `SELECT Id FROM Monitors WHERE Id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    )) as {
      Id: number;
    }[];
    return new Set(rows.map((r) => Number(r.Id)));
  }

  /**
   * Events of `monitors` that may overlap [from, to) (wall-clock text): those starting inside it,
   * and each monitor's last event starting before it (zmc records one event at a time per
   * monitor, so only that one can reach into the range).
   */
  async overlapping(monitors: number[], from: string, to: string): Promise<MonitorRow[]> {
    const inside = this.db.query(
      `SELECT ${COLUMNS} FROM Events WHERE MonitorId IN (${monitors.map(() => '?').join(', ')})` +
        ' AND StartDateTime >= ? AND StartDateTime < ?',
      [...monitors, from, to],
    ) as Promise<MonitorRow[]>;
    const before = this.db.query(
      monitors
        .map(
          () =>
            `(SELECT ${COLUMNS} FROM Events WHERE MonitorId = ? AND StartDateTime < ?` +
            ' ORDER BY StartDateTime DESC, Id DESC LIMIT 1)',
        )
        .join(' UNION ALL '),
      monitors.flatMap((m) => [m, from]),
    ) as Promise<MonitorRow[]>;
    const [a, b] = await Promise.all([inside, before]);
    return [...b, ...a];
  }

  /** Each monitor's newest event id (to tell an event being recorded from an abandoned one). */
  async newest(monitors: number[]): Promise<Map<number, number>> {
    const rows = (await this.db.query(
      monitors
        .map(
          () => '(SELECT MonitorId, Id FROM Events WHERE MonitorId = ? ORDER BY StartDateTime DESC, Id DESC LIMIT 1)',
        )
        .join(' UNION ALL '),
      monitors,
    )) as { MonitorId: number; Id: number }[];
    return new Map(rows.map((r) => [Number(r.MonitorId), Number(r.Id)]));
  }
}
