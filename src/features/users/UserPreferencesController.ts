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
  UserPreferencesService,
  type CreateUserPreferenceRequest,
  type UserPreferenceResponse,
  type UpdateUserPreferenceRequest,
} from './user-preferences-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedUserPreferencesResponse extends Page<UserPreferenceResponse> {}

@Route('api/v3/user_preferences')
@Tags('User Preferences')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input, a missing name, or an unknown user_id')
@Response<AppResponseError>(403, 'System permission required')
export class UserPreferencesController extends FeatureController {
  private readonly preferences = this.services.get(UserPreferencesService);

  /**
   * Lists the caller's own preferences; with System Edit, every user's.
   */
  @Get()
  @OperationId('list_user_preferences')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedUserPreferencesResponse> {
    return this.preferences.list(currentUser(req), page, page_size);
  }

  @Post()
  @OperationId('create_user_preference')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The user already has a preference with this name')
  public async create(
    @Request() req: ExRequest,
    @Body() body: CreateUserPreferenceRequest,
  ): Promise<UserPreferenceResponse> {
    return this.preferences.create(currentUser(req), body);
  }

  @Get('{id}')
  @OperationId('get_user_preference')
  @Response<AppResponseError>(404, 'Not found, or owned by another user and the caller lacks System Edit')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<UserPreferenceResponse> {
    return this.preferences.get(currentUser(req), id);
  }

  @Patch('{id}')
  @OperationId('update_user_preference')
  @Response<AppResponseError>(404, 'Not found, or owned by another user and the caller lacks System Edit')
  @Response<AppResponseError>(409, 'The user already has a preference with this name')
  public async update(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateUserPreferenceRequest,
  ): Promise<UserPreferenceResponse> {
    return this.preferences.update(currentUser(req), id, body);
  }

  @Delete('{id}')
  @OperationId('delete_user_preference')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or owned by another user and the caller lacks System Edit')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.preferences.remove(currentUser(req), id);
  }
}
