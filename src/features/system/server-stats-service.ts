// Host load samples (the Server_Stats table) that zmstats.pl writes every interval and trims to
// a day; listed oldest first, as clients plot them (docs/contract/clients.md). CPU figures are
// decimal(5,1) columns sent as strings ("12.5"), memory figures bytes. TimeStamp is stamped by
// the database on insert and emitted as the local wall-clock time it shows (no offset).
// The reference has no update route: samples are facts, created and deleted only.
import { InvalidInputError, notFound } from '../../errors.js';
import { decimalToString } from '../../db/prisma-json.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Server_Stats } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/prisma.js';
import { ZoneMinderClock, processZoneClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';

export interface ServerStatResponse {
  /** Server_Stats.Id. @isInt @minimum 0 */
  id: number;
  /** The server sampled; null on single-server installs. @isInt @minimum 0 */
  server_id?: number | null;
  /** When the sample was taken, as UTC with `Z`. */
  time_stamp: DateTimeWrapper | null;
  /** Load average, e.g. "0.8". */
  cpu_load?: string | null;
  /** User CPU percent, e.g. "12.5". */
  cpu_user_percent?: string | null;
  /** Nice CPU percent. */
  cpu_nice_percent?: string | null;
  /** System CPU percent. */
  cpu_system_percent?: string | null;
  /** Idle CPU percent. */
  cpu_idle_percent?: string | null;
  /** Busy CPU percent. */
  cpu_usage_percent?: string | null;
  /** Total memory, bytes. @isLong @minimum 0 */
  total_mem?: number | null;
  /** Free memory, bytes. @isLong @minimum 0 */
  free_mem?: number | null;
  /** Total swap, bytes. @isLong @minimum 0 */
  total_swap?: number | null;
  /** Free swap, bytes. @isLong @minimum 0 */
  free_swap?: number | null;
}

/**
 * A decimal(5,1) figure as text: up to 4 digits and at most one decimal.
 * @pattern ^\d{1,4}(\.\d)?$
 */
export type CpuFigure = string;

export interface CreateServerStatRequest {
  /** The server sampled (an existing server), or null. @isInt @minimum 0 @maximum 2147483647 */
  server_id?: number | null;
  /** Load average, e.g. "0.8". */
  cpu_load: CpuFigure;
  /** User CPU percent. */
  cpu_user_percent: CpuFigure;
  /** Nice CPU percent. */
  cpu_nice_percent: CpuFigure;
  /** System CPU percent. */
  cpu_system_percent: CpuFigure;
  /** Idle CPU percent. */
  cpu_idle_percent: CpuFigure;
  /** Busy CPU percent. */
  cpu_usage_percent: CpuFigure;
  /** Total memory, bytes. @isLong @minimum 0 @maximum 9007199254740991 */
  total_mem?: number | null;
  /** Free memory, bytes. @isLong @minimum 0 @maximum 9007199254740991 */
  free_mem?: number | null;
  /** Total swap, bytes. @isLong @minimum 0 @maximum 9007199254740991 */
  total_swap?: number | null;
  /** Free swap, bytes. @isLong @minimum 0 @maximum 9007199254740991 */
  free_swap?: number | null;
}

const text = (v: Prisma.Decimal | null) => (v === null ? null : decimalToString(v, 1));
const bytes = (v: bigint | null) => (v === null ? null : Number(v));
const big = (v: number | null | undefined) => (v == null ? null : BigInt(v));

function toResponse(row: Server_Stats, clock: ZoneClock): ServerStatResponse {
  return {
    id: row.Id,
    server_id: row.ServerId,
    time_stamp: clock.toUtcString(row.TimeStamp),
    cpu_load: text(row.CpuLoad),
    cpu_user_percent: text(row.CpuUserPercent),
    cpu_nice_percent: text(row.CpuNicePercent),
    cpu_system_percent: text(row.CpuSystemPercent),
    cpu_idle_percent: text(row.CpuIdlePercent),
    cpu_usage_percent: text(row.CpuUsagePercent),
    total_mem: bytes(row.TotalMem),
    free_mem: bytes(row.FreeMem),
    total_swap: bytes(row.TotalSwap),
    free_swap: bytes(row.FreeSwap),
  };
}

export class ServerStatsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): ServerStatsService {
    return new ServerStatsService(s.prisma, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: () => Promise<ZoneClock> = processZoneClock,
  ) {}

  async list(page?: number, pageSize?: number): Promise<Page<ServerStatResponse>> {
    const req = pageRequest(page, pageSize);
    const clock = await this.clock();
    return listPage(
      req,
      this.prisma.server_Stats.findMany({
        orderBy: [{ TimeStamp: 'asc' }, { Id: 'asc' }],
        skip: req.skip,
        take: req.take,
      }),
      this.prisma.server_Stats.count(),
      (r) => toResponse(r, clock),
    );
  }

  async get(id: number): Promise<ServerStatResponse> {
    const row = await this.prisma.server_Stats.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Server stat', id, 'FILE');
    return toResponse(row, await this.clock());
  }

  async create(body: CreateServerStatRequest): Promise<ServerStatResponse> {
    if (
      body.server_id != null &&
      !(await this.prisma.servers.findUnique({ where: { Id: body.server_id }, select: { Id: true } }))
    ) {
      throw new InvalidInputError(`Server ${body.server_id} does not exist`, [
        ['server_id', `no server with id ${body.server_id}`],
      ]);
    }
    const row = await this.prisma.server_Stats.create({
      data: {
        ServerId: body.server_id ?? null,
        CpuLoad: body.cpu_load,
        CpuUserPercent: body.cpu_user_percent,
        CpuNicePercent: body.cpu_nice_percent,
        CpuSystemPercent: body.cpu_system_percent,
        CpuIdlePercent: body.cpu_idle_percent,
        CpuUsagePercent: body.cpu_usage_percent,
        TotalMem: big(body.total_mem),
        FreeMem: big(body.free_mem),
        TotalSwap: big(body.total_swap),
        FreeSwap: big(body.free_swap),
      },
    });
    return toResponse(row, await this.clock());
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.server_Stats.delete({ where: { Id: id } });
  }
}
