// Step 2 of the audit's database half (audit-db.ts): unclosed events whose capture daemon is no
// longer writing are closed: end time, length, frame count and scores recomputed from the frames
// that exist, name tagged "(r)" and notes "Recovered." as ZoneMinder does. Never deleted.
import type { DbPool } from '../../db/pool.js';
import type { Logger } from '../../log.js';
import type { JobCounts } from './scheduler.js';
import { MONITOR_STATUS_STALE_SECONDS } from './stats-job.js';
import { hasColumn } from './zm-settings.js';

/** Monitors per grouped read of their newest event. */
const MONITOR_CHUNK = 500;
/** Abandoned events closed per statement. */
const RECOVER_CHUNK = 50;

/**
 * 2. Unclosed events. One is abandoned when nothing was written to it for min_age_seconds
 * and its capture daemon is gone: a newer event of the same monitor exists (zmc records one
 * event at a time), or the monitor's Monitor_Status heartbeat is stale or absent.
 */
export async function recoverUnclosed(
  o: { pool: DbPool; log: Logger; dryRun: boolean; minAgeSeconds: number },
  counts: JobCounts,
): Promise<Set<number>> {
  // 1.36's Monitor_Status has no UpdatedOn: without a heartbeat, the frames' age decides alone
  // (a live zmc writes a Frames row at least every ZM_BULK_FRAME_INTERVAL frames).
  const heartbeat = await hasColumn(o.pool, 'Monitor_Status', 'UpdatedOn');
  const candidates = await o.pool.query<Array<{ Id: number; MonitorId: number; alive: number | null }>>(
    `SELECT e.Id, e.MonitorId,
              ${heartbeat ? "(SELECT s.Status IN ('Connected', 'Running') AND s.UpdatedOn >= NOW() - INTERVAL ? SECOND FROM Monitor_Status s WHERE s.MonitorId = e.MonitorId)" : '(SELECT 0 FROM DUAL WHERE ? IS NOT NULL)'} AS alive
         FROM Events e
        WHERE e.EndDateTime IS NULL AND e.Archived = 0 AND e.StartDateTime < NOW() - INTERVAL ? SECOND
          AND COALESCE((SELECT MAX(f.TimeStamp) FROM Frames f WHERE f.EventId = e.Id), e.StartDateTime) < NOW() - INTERVAL ? SECOND`,
    [MONITOR_STATUS_STALE_SECONDS, o.minAgeSeconds, o.minAgeSeconds],
  );
  // Superseded: the monitor has a newer event, from one grouped read of the newest id per
  // monitor. A correlated EXISTS (… n.MonitorId = e.MonitorId AND n.Id > e.Id) per candidate
  // took 20-35 s for 10,000 open events among 1,000,000 (bench/maintenance.ts): 1.39's index
  // on MonitorId is (MonitorId, StartDateTime), which cannot seek to an Id.
  const monitors = [...new Set(candidates.map((c) => Number(c.MonitorId)))];
  const newest = new Map<number, number>();
  for (let i = 0; i < monitors.length; i += MONITOR_CHUNK) {
    const chunk = monitors.slice(i, i + MONITOR_CHUNK);
    for (const r of await o.pool.query<Array<{ MonitorId: number; maxId: number }>>(
      `SELECT MonitorId, MAX(Id) AS maxId FROM Events WHERE MonitorId IN (${chunk.map(() => '?').join(',')}) GROUP BY MonitorId`,
      chunk,
    ))
      newest.set(Number(r.MonitorId), Number(r.maxId));
  }
  counts.unclosed_recovered = 0;
  counts.unclosed_left_live = 0;
  const touched = new Set<number>();
  if (!candidates.length) return touched;
  const hasMaxScoreFrameId = await hasColumn(o.pool, 'Events', 'MaxScoreFrameId');
  const abandoned: Array<{ Id: number; MonitorId: number }> = [];
  for (const c of candidates) {
    const superseded = (newest.get(Number(c.MonitorId)) ?? 0) > Number(c.Id);
    if (!superseded && Number(c.alive)) {
      counts.unclosed_left_live += 1;
      continue;
    }
    touched.add(Number(c.Id));
    if (o.dryRun) {
      counts.unclosed_recovered += 1;
      o.log.info(
        { job: 'audit', event_id: Number(c.Id), monitor_id: c.MonitorId, dry_run: true },
        'would close an abandoned unclosed event from its frames',
      );
      continue;
    }
    abandoned.push(c);
  }
  // RECOVER_CHUNK events per statement: one UPDATE per event was most of a pass's statements
  // (bench/maintenance.ts); a chunk's frames are aggregated in one grouped read.
  for (let i = 0; i < abandoned.length; i += RECOVER_CHUNK) {
    const chunk = abandoned.slice(i, i + RECOVER_CHUNK);
    const ids = chunk.map((c) => c.Id);
    const marks = ids.map(() => '?').join(',');
    const res = await o.pool.query<{ affectedRows: number }>(
      `UPDATE Events e
           LEFT JOIN (SELECT EventId, MAX(TimeStamp) AS endTime, MAX(FrameId) AS frames,
                             COUNT(IF(Score > 0, 1, NULL)) AS alarmFrames, SUM(Score) AS totScore, MAX(Score) AS maxScore
                        FROM Frames WHERE EventId IN (${marks}) GROUP BY EventId) f ON f.EventId = e.Id
           LEFT JOIN Monitors m ON m.Id = e.MonitorId
            SET e.EndDateTime = COALESCE(f.endTime, e.StartDateTime),
                e.Length = GREATEST(0, TIMESTAMPDIFF(MICROSECOND, e.StartDateTime, COALESCE(f.endTime, e.StartDateTime)) / 1000000),
                e.Frames = COALESCE(f.frames, 0),
                e.AlarmFrames = COALESCE(f.alarmFrames, 0),
                e.TotScore = COALESCE(f.totScore, 0),
                e.AvgScore = IF(f.alarmFrames > 0, FLOOR(f.totScore / f.alarmFrames), 0),
                e.MaxScore = COALESCE(f.maxScore, 0),
                ${hasMaxScoreFrameId ? 'e.MaxScoreFrameId = (SELECT fr.FrameId FROM Frames fr WHERE fr.EventId = e.Id ORDER BY fr.Score DESC, fr.FrameId LIMIT 1),' : ''}
                e.Name = IF(e.Name = 'New Event', CONCAT(COALESCE(m.EventPrefix, 'Event-'), e.Id, '(r)'), e.Name),
                e.Notes = CONCAT_WS(' ', NULLIF(e.Notes, ''), 'Recovered.')
          WHERE e.Id IN (${marks}) AND e.EndDateTime IS NULL AND e.Archived = 0`,
      [...ids, ...ids],
    );
    if (!res.affectedRows) continue;
    counts.unclosed_recovered += res.affectedRows;
    o.log.warn(
      { job: 'audit', event_ids: ids.map(Number), recovered: res.affectedRows },
      'closed unclosed events whose capture daemon stopped writing (marked Recovered)',
    );
  }
  return touched;
}
