// GET /search: event search. The reference answers from a vector index of its own companion
// pipeline; zmgate has none, so it searches what ZoneMinder itself stores: every word of `q`
// must occur (case-insensitively) in the event's name, cause or notes, which is where
// ZoneMinder and zmeventnotification write what happened ("Motion: Front", "detected:person").
// Hits are ranked by where the words occur (name > cause > notes), then newest first. Only
// events of monitors the caller may see are searched. `backend` says which backend answered.
import type { AuthUser } from '../../auth/auth-service.js';
import type { MonitorAcl } from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError } from '../../errors.js';
import { wallClockSql, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import { inList } from '../../zm/event-visibility.js';
import type { Services } from '../../registry.js';

export interface SearchCitation {
  /**
   * @isLong
   * @minimum 0
   */
  event_id: number;
  /**
   * Relevance, 0 (exclusive) to 1.
   * @isFloat
   */
  score: number;
  /** The matching text (name, cause or notes), shortened around the first word of `q`. */
  snippet: string;
  /**
   * Event start as Unix seconds.
   * @isLong
   */
  ts: number;
  /** The event's API path. */
  url: string;
}

export interface SearchResponse {
  /** A generated answer; always null here (no language model). */
  answer?: string | null;
  /** The backend that answered: `sql` (keyword match over event name, cause and notes). */
  backend: string;
  citations: SearchCitation[];
  /**
   * Matching events in all (citations hold at most k of them).
   * @isLong
   * @minimum 0
   */
  count?: number | null;
}

export interface SearchQuery {
  q: string;
  monitor_id?: number;
  from?: number;
  to?: number;
  class?: string;
  k?: number;
}

export const SEARCH_LIMITS = { q: 256, words: 10, k: 100, defaultK: 10 } as const;
/** 9999-12-31T23:59:59Z: beyond it no DATETIME exists. */
const MAX_UNIX = 253_402_300_799;

const contains = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function snippetOf(texts: Array<string | null>, word: string): string {
  const text = texts.find((t) => t && t.toLowerCase().includes(word)) ?? texts.find((t) => t) ?? '';
  if (text.length <= 160) return text;
  const at = Math.max(0, text.toLowerCase().indexOf(word) - 60);
  return `${at > 0 ? '…' : ''}${text.slice(at, at + 160)}${at + 160 < text.length ? '…' : ''}`;
}

function unixParam(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || Math.abs(value) > MAX_UNIX)) {
    throw new InvalidInputError('Invalid input', [[name, 'must be Unix seconds between 0001 and 9999']]);
  }
}

export class SearchService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): SearchService {
    return new SearchService(s.prisma, s.acl, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    private readonly clock: () => Promise<ZoneClock>,
  ) {}

  async search(user: AuthUser, query: SearchQuery): Promise<SearchResponse> {
    const q = (query.q ?? '').trim();
    if (!q) throw new InvalidInputError('Invalid input', [['q', 'must not be empty']]);
    if (q.length > SEARCH_LIMITS.q)
      throw new InvalidInputError('Invalid input', [['q', `must be at most ${SEARCH_LIMITS.q} characters`]]);
    const words = [...new Set(q.toLowerCase().split(/\s+/))];
    if (words.length > SEARCH_LIMITS.words)
      throw new InvalidInputError('Invalid input', [['q', `may have at most ${SEARCH_LIMITS.words} words`]]);
    const k = query.k === undefined || query.k === 0 ? SEARCH_LIMITS.defaultK : query.k;
    if (!Number.isInteger(k) || k < 0 || k > SEARCH_LIMITS.k)
      throw new InvalidInputError('Invalid input', [['k', `must be an integer 1..${SEARCH_LIMITS.k}`]]);
    unixParam('from', query.from);
    unixParam('to', query.to);
    if (query.from !== undefined && query.to !== undefined && query.from > query.to)
      throw new InvalidInputError('Invalid input', [['to', 'is before from']]);
    const cls = query.class?.trim();
    if (cls && cls.length > 64)
      throw new InvalidInputError('Invalid input', [['class', 'must be at most 64 characters']]);

    const [clock, scope] = await Promise.all([this.clock(), this.acl.scope(user)]);
    const empty: SearchResponse = { answer: null, backend: 'sql', citations: [], count: 0 };
    if (scope.visible && scope.visible.size === 0) return empty;

    const conditions: string[] = [];
    const params: unknown[] = [];
    if (scope.visible) {
      const visible = inList(scope.visible);
      conditions.push(`E.MonitorId IN ${visible.sql}`);
      params.push(...visible.params);
    }
    for (const word of words) {
      conditions.push(`(LOWER(E.Name) LIKE ? OR LOWER(E.Cause) LIKE ? OR LOWER(E.Notes) LIKE ?)`);
      params.push(contains(word), contains(word), contains(word));
    }
    if (query.monitor_id !== undefined) {
      conditions.push('E.MonitorId = ?');
      params.push(query.monitor_id);
    }
    const toWall = (unix: number) => wallClockSql(clock.toWall(new Date(unix * 1000)));
    if (query.from !== undefined) {
      conditions.push('E.StartDateTime >= ?');
      params.push(toWall(query.from));
    }
    if (query.to !== undefined) {
      conditions.push('E.StartDateTime <= ?');
      params.push(toWall(query.to));
    }
    if (cls) {
      // An object class detected in the event (AI_Detections), or named in its notes as
      // zmeventnotification writes them ("detected:person:93%").
      conditions.push(
        `(EXISTS (SELECT 1 FROM AI_Detections d JOIN AI_Object_Classes c ON c.Id = d.ObjectClassId WHERE d.EventId = E.Id AND c.ClassName = ?) OR LOWER(E.Notes) LIKE ?)`,
      );
      params.push(cls, contains(cls));
    }
    const where = `WHERE ${conditions.join(' AND ')}`;
    // Name hits weigh 3, cause 2, notes 1; normalised to (0, 1] below.
    const score = words
      .map(
        () =>
          `(COALESCE(LOWER(E.Name) LIKE ?, 0) * 3 + COALESCE(LOWER(E.Cause) LIKE ?, 0) * 2 + COALESCE(LOWER(E.Notes) LIKE ?, 0))`,
      )
      .join(' + ');
    const scoreParams = words.flatMap((w) => [contains(w), contains(w), contains(w)]);

    const [rows, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<
        Array<{
          Id: bigint | number;
          Name: string;
          Cause: string | null;
          Notes: string | null;
          StartDateTime: Date | null;
          score: unknown;
        }>
      >(
        `SELECT E.Id, E.Name, E.Cause, E.Notes, E.StartDateTime, (${score}) AS score FROM Events E ${where} ORDER BY score DESC, E.StartDateTime DESC, E.Id DESC LIMIT ?`,
        ...scoreParams,
        ...params,
        k,
      ),
      this.prisma.$queryRawUnsafe<Array<{ n: bigint | number }>>(
        `SELECT COUNT(*) AS n FROM Events E ${where}`,
        ...params,
      ),
    ]);
    return {
      answer: null,
      backend: 'sql',
      count: Number(counted[0]?.n ?? 0),
      citations: rows.map((r) => ({
        event_id: Number(r.Id),
        score: Math.round((Number(r.score) / (6 * words.length)) * 1000) / 1000,
        snippet: snippetOf([r.Notes, r.Cause, r.Name], words[0]),
        ts: r.StartDateTime ? Math.floor(clock.fromWall(r.StartDateTime).getTime() / 1000) : 0,
        url: `/api/v3/events/${r.Id}`,
      })),
    };
  }
}
