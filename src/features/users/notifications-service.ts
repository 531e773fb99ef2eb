// Push-notification registrations (Notifications, ZoneMinder 1.39.2): one row per device token,
// owned by a user. Any authenticated user manages their own rows (a mobile client registers its
// token); System View sees everyone's, System Edit changes everyone's and may register rows for
// other users or for none. Rows the caller may not see answer 404 like missing ones.
import type { AuthUser } from '../../auth/auth-service.js';
import { allows } from '../../auth/permissions.js';
import { fromLocalDateTimeInput, toLocalDateTimeString, toWallClock } from '../../db/datetime.js';
import { InvalidInputError, PermissionDeniedError, notFound } from '../../errors.js';
import type { LocalDateTime } from '../../api/envelopes.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Notifications, Prisma } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

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
  last_notified_at?: LocalDateTime | null;
  created_on?: LocalDateTime | null;
  updated_on?: LocalDateTime | null;
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
   * When the device was last notified (local wall-clock time); null clears it.
   * @pattern ^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$
   */
  last_notified_at?: string | null;
}

function toResponse(row: Notifications): NotificationResponse {
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
    last_notified_at: toLocalDateTimeString(row.LastNotifiedAt),
    created_on: toLocalDateTimeString(row.CreatedOn),
    updated_on: toLocalDateTimeString(row.UpdatedOn),
  };
}

function toData(body: CreateNotificationRequest | UpdateNotificationRequest): Record<string, unknown> {
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
    try {
      data.LastNotifiedAt = body.last_notified_at === null ? null : fromLocalDateTimeInput(body.last_notified_at);
    } catch {
      throw new InvalidInputError('Invalid input', [['last_notified_at', 'not a valid local date-time']]);
    }
  }
  return data;
}

const seesAll = (user: AuthUser) => allows(user.perms, 'system', 'View');
const editsAll = (user: AuthUser) => allows(user.perms, 'system', 'Edit');

export class NotificationsService extends DbService {
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
    return listPage(
      req,
      this.prisma.notifications.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.notifications.count({ where }),
      toResponse,
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
    return toResponse(await this.row(user, id, false));
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
    const row = await this.prisma.notifications.create({
      data: {
        ...toData(body),
        UserId: owner,
        CreatedOn: toWallClock(new Date()),
      } as Prisma.NotificationsUncheckedCreateInput,
    });
    return toResponse(row);
  }

  async update(user: AuthUser, id: number, body: UpdateNotificationRequest): Promise<NotificationResponse> {
    await this.row(user, id, true);
    const row = await this.prisma.notifications.update({
      where: { Id: id },
      data: toData(body) as Prisma.NotificationsUncheckedUpdateInput,
    });
    return toResponse(row);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.row(user, id, true);
    await this.prisma.notifications.delete({ where: { Id: id } });
  }
}
