import {
  Body,
  Delete,
  Get,
  OperationId,
  Patch,
  Path,
  Post,
  Query,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import { RolesService, type CreateRoleRequest, type RoleResponse, type UpdateRoleRequest } from './roles-service.js';

export interface PaginatedRolesResponse extends Page<RoleResponse> {}

// User roles (ZoneMinder 1.37.78+ User_Roles). System-gated: a role grants areas to its users, so
// managing roles is permission management.
@Route('api/v3/roles')
@Tags('Roles')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input: bad level, name too long')
@Response<AppResponseError>(403, 'System permission required')
export class RolesController extends FeatureController {
  private readonly service = this.services.get(RolesService);

  /**
   * Lists user roles.
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_roles')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedRolesResponse> {
    return this.service.list(page, page_size);
  }

  @Post()
  @OperationId('create_role')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A role with this name exists')
  public async create(@Body() body: CreateRoleRequest): Promise<RoleResponse> {
    return this.service.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_role')
  public async get(@Path() id: number): Promise<RoleResponse> {
    return this.service.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_role')
  @Response<AppResponseError>(409, 'A role with this name exists')
  public async update(@Path() id: number, @Body() body: UpdateRoleRequest): Promise<RoleResponse> {
    return this.service.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_role')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.service.remove(id);
  }
}
