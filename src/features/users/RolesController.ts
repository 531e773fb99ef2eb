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
import type { Id, PageNumber, PageSize } from '../../api/params.js';
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
   */
  @Get()
  @OperationId('list_roles')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedRolesResponse> {
    return this.service.list(page, page_size);
  }

  @Post()
  @OperationId('create_role')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A role with this name exists')
  public async create(@Body() body: CreateRoleRequest): Promise<RoleResponse> {
    return this.service.create(body);
  }

  @Get('{id}')
  @OperationId('get_role')
  public async get(@Path() id: Id): Promise<RoleResponse> {
    return this.service.get(id);
  }

  @Patch('{id}')
  @OperationId('update_role')
  @Response<AppResponseError>(409, 'A role with this name exists')
  public async update(@Path() id: Id, @Body() body: UpdateRoleRequest): Promise<RoleResponse> {
    return this.service.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_role')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.service.remove(id);
  }
}
