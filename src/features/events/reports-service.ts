// Reports (the Reports table, ZoneMinder 1.37.22+). `CreatedBy` is always the authenticated
// caller (interface spec, field rule 5): a body cannot set or change it.
import type { AuthUser } from '../../auth/auth-service.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError, notFound } from '../../errors.js';
import type { Reports } from '../../generated/prisma/client.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import { parseEventTime, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';

export interface ReportResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name?: string | null;
  /**
   * The filter the report runs.
   * @isInt
   * @minimum 0
   */
  filter_id?: number | null;
  /** Start of the period, as UTC with `Z`. */
  start_date_time?: DateTimeWrapper | null;
  /** End of the period, as UTC with `Z`. */
  end_date_time?: DateTimeWrapper | null;
  /**
   * Interval in seconds.
   * @isInt
   * @minimum 0
   */
  interval?: number | null;
  /**
   * The user who created the report (from their token).
   * @isInt
   * @minimum 0
   */
  created_by?: number | null;
}

export interface CreateReportRequest {
  /**
   * Report name.
   * @maxLength 30
   */
  name?: string | null;
  /**
   * A saved filter; must exist.
   * @isInt
   * @minimum 0
   */
  filter_id?: number | null;
  /** Start of the period: ZoneMinder local time (YYYY-MM-DDTHH:MM[:SS]), or ISO 8601 with Z/offset. */
  start_date_time: string;
  /** End of the period, as start_date_time; not before it. */
  end_date_time: string;
  /**
   * Interval in seconds.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  interval?: number | null;
}

/** As the reference: both times are given on every update; the other fields are optional. */
export interface UpdateReportRequest {
  /**
   * Report name; null clears it.
   * @maxLength 30
   */
  name?: string | null;
  /**
   * A saved filter (must exist); null clears it.
   * @isInt
   * @minimum 0
   */
  filter_id?: number | null;
  /** Start of the period, as in CreateReportRequest. */
  start_date_time: string;
  /** End of the period, as in CreateReportRequest. */
  end_date_time: string;
  /**
   * Interval in seconds; null clears it.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  interval?: number | null;
}

function toResponse(row: Reports, clock: ZoneClock): ReportResponse {
  return {
    id: row.Id,
    name: row.Name,
    filter_id: row.FilterId,
    start_date_time: clock.toUtcString(row.StartDateTime),
    end_date_time: clock.toUtcString(row.EndDateTime),
    interval: row.Interval,
    created_by: row.CreatedBy,
  };
}

export class ReportsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): ReportsService {
    return new ReportsService(s.prisma, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: () => Promise<ZoneClock>,
  ) {}

  async list(page?: number, pageSize?: number): Promise<Page<ReportResponse>> {
    const req = pageRequest(page, pageSize);
    const clock = await this.clock();
    return listPage(
      req,
      this.prisma.reports.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.reports.count(),
      (r) => toResponse(r, clock),
    );
  }

  async get(id: number): Promise<ReportResponse> {
    return toResponse(await this.row(id), await this.clock());
  }

  async create(user: AuthUser, body: CreateReportRequest): Promise<ReportResponse> {
    const period = await this.period(body);
    await this.checkFilter(body.filter_id);
    const row = await this.prisma.reports.create({
      data: {
        Name: body.name ?? null,
        FilterId: body.filter_id ?? null,
        StartDateTime: period.start,
        EndDateTime: period.end,
        Interval: body.interval ?? null,
        CreatedBy: user.id,
      },
    });
    return toResponse(row, await this.clock());
  }

  async update(id: number, body: UpdateReportRequest): Promise<ReportResponse> {
    await this.row(id);
    const period = await this.period(body);
    await this.checkFilter(body.filter_id);
    const row = await this.prisma.reports.update({
      where: { Id: id },
      data: {
        StartDateTime: period.start,
        EndDateTime: period.end,
        ...(body.name !== undefined && { Name: body.name }),
        ...(body.filter_id !== undefined && { FilterId: body.filter_id }),
        ...(body.interval !== undefined && { Interval: body.interval }),
      },
    });
    return toResponse(row, await this.clock());
  }

  async remove(id: number): Promise<void> {
    await this.row(id);
    await this.prisma.reports.delete({ where: { Id: id } });
  }

  private async row(id: number): Promise<Reports> {
    const row = await this.prisma.reports.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Report', id, 'FILE');
    return row;
  }

  private async period(body: { start_date_time: string; end_date_time: string }): Promise<{ start: Date; end: Date }> {
    const clock = await this.clock();
    const parse = (field: string, text: string) => {
      const wall = parseEventTime(text, clock);
      if (!wall || wall.getUTCFullYear() < 1000)
        throw new InvalidInputError('Invalid input', [
          [field, 'must be a date-time: YYYY-MM-DDTHH:MM:SS (ZoneMinder local time) or ISO 8601 with Z/offset'],
        ]);
      wall.setUTCMilliseconds(0); // DATETIME(0)
      return wall;
    };
    const start = parse('start_date_time', body.start_date_time);
    const end = parse('end_date_time', body.end_date_time);
    if (end.getTime() < start.getTime())
      throw new InvalidInputError('Invalid input', [['end_date_time', 'is before start_date_time']]);
    return { start, end };
  }

  private async checkFilter(id: number | null | undefined): Promise<void> {
    if (id == null) return;
    if (!(await this.prisma.filters.findUnique({ where: { Id: id }, select: { Id: true } }))) {
      throw new InvalidInputError('Invalid input', [['filter_id', 'no such filter']]);
    }
  }
}
