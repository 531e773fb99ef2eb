import {
  Body,
  Delete,
  Get,
  OperationId,
  Path,
  Post,
  Put,
  Query,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { UserResponse } from '../../auth/user-response.js';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import { UsersService, type CreateUserRequest, type UpdateUserRequest } from './users-service.js';

export interface PaginatedUsersResponse extends Page<UserResponse> {}

/** Accounts and their permission columns: System (granting permissions needs System Edit). */
@Route('api/v3/users')
@Tags('Users')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'System permission required')
export class UsersController extends FeatureController {
  private readonly users = this.services.get(UsersService);

  /**
   * Lists accounts. Passwords are never returned.
   */
  @Get()
  @OperationId('list_users')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedUsersResponse> {
    return this.users.list(page, page_size);
  }

  /** Creates an account; the password is stored as a bcrypt hash. */
  @Post()
  @OperationId('create_user')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The user name is taken')
  public async create(@Body() body: CreateUserRequest): Promise<UserResponse> {
    return this.users.create(body);
  }

  @Get('{id}')
  @OperationId('get_user')
  public async get(@Path() id: Id): Promise<UserResponse> {
    return this.users.get(id);
  }

  /**
   * Partial update. A new password, or disabling the account or its API access, revokes all of
   * the account's tokens.
   */
  @Put('{id}')
  @OperationId('update_user')
  @Response<AppResponseError>(409, 'The user name is taken')
  public async update(@Path() id: Id, @Body() body: UpdateUserRequest): Promise<UserResponse> {
    return this.users.update(id, body);
  }

  /**
   * Deletes the account (and its preferences); its tokens stop working at once.
   */
  @Delete('{id}')
  @OperationId('delete_user')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.users.remove(id);
  }
}
