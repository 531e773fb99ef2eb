// Push-notification registrations (Notifications, ZoneMinder 1.39.2): one row per device token,
// owned by a user. Any authenticated user manages their own rows (a mobile client registers its
// token); System View sees everyone's, System Edit changes everyone's and may register rows for
// other users or for none. Rows the caller may not see answer 404 like missing ones.
import type { AuthUser } from '../../auth/auth-service.js';
import { allows } from '../../auth/permissions.js';
import { InvalidInputError, PermissionDeniedError, notFound } from '../../errors.js';
import type { DateTimeWrapper } from '../../api/wrappers.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Notifications, Prisma } from '../../generated/prisma/client.js';
import type { PrismaClient } from '../../db/prisma.js';
import { parseTimeInput, processZoneClock, ZoneMinderClock, type ZoneClock } from '../../zm/event-time.js';
import type { Services } from '../../registry.js';

export type NotificationPlatform = 'android' | 'ios' | 'web';
export type NotificationPushState = 'enabled' | 'disabled';

export interface NotificationResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /**
   * The owner; null for a row registered without one.
   * @isInt
   * @minimum 0
   */
  user_id?: number | null;
  token: string;
  platform: NotificationPlatform;
  /** Comma-separated monitor ids to notify about; null or empty: all. */
  monitor_list?: string | null;
  /**
   * Minimum seconds between notifications.
   * @isInt
   * @minimum 0
   */
  interval: number;
  push_state: NotificationPushState;
  app_version?: string | null;
  profile?: string | null;
  /** @isInt */
  badge_count: number;
  /** Times as UTC with `Z`. */
  last_notified_at?: DateTimeWrapper | null;
  created_on?: DateTimeWrapper | null;
  updated_on?: DateTimeWrapper | null;
}

interface NotificationFields {
  /**
   * Comma-separated monitor ids; null or empty: all monitors.
   * @pattern ^(\d+(,\d+)*)?$
   * @maxLength 65535
   */
  monitor_list?: string | null;
  /**
   * Minimum seconds between notifications.
   * @isLong
   * @minimum 0
   * @maximum 4294967295
   */
  interval?: number | null;
  push_state?: NotificationPushState | null;
  /**
   * Client app version.
   * @maxLength 32
   */
  app_version?: string | null;
  /**
   * Client profile name.
   * @maxLength 128
   */
  profile?: string | null;
  /**
   * Unread count shown on the app icon.
   * @isInt
   * @minimum -2147483648
   * @maximum 2147483647
   */
  badge_count?: number | null;
}

export interface CreateNotificationRequest extends NotificationFields {
  /**
   * The push token (FCM, APNs, web push); unique.
   * @minLength 1
   * @maxLength 512
   */
  token: string;
  platform: NotificationPlatform;
  /**
   * Owner; defaults to the caller. Another user, or null, needs System Edit.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  user_id?: number | null;
}

export interface UpdateNotificationRequest extends NotificationFields {
  /**
   * A new push token; unique.
   * @minLength 1
   * @maxLength 512
   */
  token?: string | null;
  platform?: NotificationPlatform | null;
  /**
   * When the device was last notified, ISO 8601 (without an offset: ZoneMinder local time); null
   * clears it.
   */
  last_notified_at?: DateTimeWrapper | null;
}

function toResponse(row: Notifications, clock: ZoneClock): NotificationResponse {
  return {
    id: row.Id,
    user_id: row.UserId,
    token: row.Token,
    platform: row.Platform,
    monitor_list: row.MonitorList,
    interval: row.Interval,
    push_state: row.PushState,
    app_version: row.AppVersion,
    profile: row.Profile,
    badge_count: row.BadgeCount,
    last_notified_at: clock.toUtcString(row.LastNotifiedAt),
    created_on: clock.toUtcString(row.CreatedOn),
    updated_on: clock.toUtcString(row.UpdatedOn),
  };
}

function toData(
  body: CreateNotificationRequest | UpdateNotificationRequest,
  clock: ZoneClock,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (body.token != null) data.Token = body.token;
  if (body.platform != null) data.Platform = body.platform;
  if (body.monitor_list !== undefined) data.MonitorList = body.monitor_list;
  if (body.interval != null) data.Interval = body.interval;
  if (body.push_state != null) data.PushState = body.push_state;
  if (body.app_version !== undefined) data.AppVersion = body.app_version;
  if (body.profile !== undefined) data.Profile = body.profile;
  if (body.badge_count != null) data.BadgeCount = body.badge_count;
  if ('last_notified_at' in body && body.last_notified_at !== undefined) {
    data.LastNotifiedAt =
      body.last_notified_at === null ? null : parseTimeInput('last_notified_at', body.last_notified_at, clock);
  }
  return data;
}

const seesAll = (user: AuthUser) => allows(user.perms, 'system', 'View');
const editsAll = (user: AuthUser) => allows(user.perms, 'system', 'Edit');

export class NotificationsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): NotificationsService {
    return new NotificationsService(s.prisma, s.get(ZoneMinderClock));
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: () => Promise<ZoneClock> = processZoneClock,
  ) {}

  async list(
    user: AuthUser,
    userId: number | undefined,
    page?: number,
    pageSize?: number,
  ): Promise<Page<NotificationResponse>> {
    const req = pageRequest(page, pageSize);
    const where: Prisma.NotificationsWhereInput = {
      AND: [userId === undefined ? {} : { UserId: userId }, seesAll(user) ? {} : { UserId: user.id }],
    };
    const clock = await this.clock();
    return listPage(
      req,
      this.prisma.notifications.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.notifications.count({ where }),
      (r) => toResponse(r, clock),
    );
  }

  /** The row, or 404 when missing or someone else's without System View; 403 to write it without System Edit. */
  private async row(user: AuthUser, id: number, write: boolean): Promise<Notifications> {
    const row = await this.prisma.notifications.findUnique({ where: { Id: id } });
    const own = row?.UserId === user.id;
    if (!row || (!own && !seesAll(user))) throw notFound('Notification', id);
    if (write && !own && !editsAll(user)) {
      throw new PermissionDeniedError(`Notification ${id} belongs to another user`, [['id', String(id)]]);
    }
    return row;
  }

  async get(user: AuthUser, id: number): Promise<NotificationResponse> {
    return toResponse(await this.row(user, id, false), await this.clock());
  }

  async create(user: AuthUser, body: CreateNotificationRequest): Promise<NotificationResponse> {
    const owner = body.user_id === undefined ? user.id : body.user_id;
    if (owner !== user.id && !editsAll(user)) {
      throw new PermissionDeniedError('Registering for another user needs System Edit', [['user_id', String(owner)]]);
    }
    if (owner !== null && !(await this.prisma.users.findUnique({ where: { Id: owner }, select: { Id: true } }))) {
      throw new InvalidInputError('Invalid input', [['user_id', `unknown user ${owner}`]]);
    }
    // A token registered twice is a unique-index 409, mapped centrally.
    const clock = await this.clock();
    const row = await this.prisma.notifications.create({
      data: {
        ...toData(body, clock),
        UserId: owner,
        CreatedOn: clock.now(),
      } as Prisma.NotificationsUncheckedCreateInput,
    });
    return toResponse(row, clock);
  }

  async update(user: AuthUser, id: number, body: UpdateNotificationRequest): Promise<NotificationResponse> {
    await this.row(user, id, true);
    const clock = await this.clock();
    const row = await this.prisma.notifications.update({
      where: { Id: id },
      data: toData(body, clock) as Prisma.NotificationsUncheckedUpdateInput,
    });
    return toResponse(row, clock);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.row(user, id, true);
    await this.prisma.notifications.delete({ where: { Id: id } });
  }
}
