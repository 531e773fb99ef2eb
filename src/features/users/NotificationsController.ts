import {
  Body,
  Delete,
  Get,
  OperationId,
  Patch,
  Path,
  Post,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  NotificationsService,
  type CreateNotificationRequest,
  type NotificationResponse,
  type UpdateNotificationRequest,
} from './notifications-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedNotificationsResponse extends Page<NotificationResponse> {}

const user = (req: ExRequest) => currentUser(req);

// Push-notification registrations. Any authenticated user manages their own device tokens;
// System View sees all rows and System Edit changes all (see NotificationsService).
@Route('api/v3/notifications')
@Tags('Notifications')
@Security('jwt', ['authenticated'])
@Response<AppResponseError>(400, 'Invalid input: unknown user, bad platform or monitor list, value too long')
@Response<AppResponseError>(403, 'A registration of another user, without System Edit')
export class NotificationsController extends FeatureController {
  private readonly service = this.services.get(NotificationsService);

  /**
   * Lists push registrations: the caller's own, or everyone's with System View.
   * @param user_id Only rows of this user (others' rows need System View).
   */
  @Get()
  @OperationId('list_notifications')
  public async list(
    @Request() req: ExRequest,
    @Query() user_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedNotificationsResponse> {
    return this.service.list(user(req), user_id, page, page_size);
  }

  @Post()
  @OperationId('create_notification')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'This push token is already registered')
  public async create(
    @Request() req: ExRequest,
    @Body() body: CreateNotificationRequest,
  ): Promise<NotificationResponse> {
    return this.service.create(user(req), body);
  }

  @Get('{id}')
  @OperationId('get_notification')
  @Response<AppResponseError>(404, 'Not found, or owned by another user (without System View)')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<NotificationResponse> {
    return this.service.get(user(req), id);
  }

  @Patch('{id}')
  @OperationId('update_notification')
  @Response<AppResponseError>(404, 'Not found, or owned by another user (without System View)')
  @Response<AppResponseError>(409, 'This push token is already registered')
  public async update(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateNotificationRequest,
  ): Promise<NotificationResponse> {
    return this.service.update(user(req), id, body);
  }

  @Delete('{id}')
  @OperationId('delete_notification')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or owned by another user (without System View)')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.service.remove(user(req), id);
  }
}
