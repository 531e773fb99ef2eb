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
import {
  ServersService,
  type CreateServerRequest,
  type ServerResponse,
  type UpdateServerRequest,
} from './servers-service.js';

export interface PaginatedServersResponse extends Page<ServerResponse> {}

@Route('api/v3/servers')
@Tags('Servers')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'System permission required')
export class ServersController extends FeatureController {
  private readonly servers = this.services.get(ServersService);

  /**
   * Lists servers.
   */
  @Get()
  @OperationId('list_servers')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedServersResponse> {
    return this.servers.list(page, page_size);
  }

  /** Creates a server with every field of ServerResponse settable. */
  @Post()
  @OperationId('create_server')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateServerRequest): Promise<ServerResponse> {
    return this.servers.create(body);
  }

  @Get('{id}')
  @OperationId('get_server')
  public async get(@Path() id: Id): Promise<ServerResponse> {
    return this.servers.get(id);
  }

  @Patch('{id}')
  @OperationId('update_server')
  public async update(@Path() id: Id, @Body() body: UpdateServerRequest): Promise<ServerResponse> {
    return this.servers.update(id, body);
  }

  /**
   * Deletes a server no monitor or storage area is assigned to.
   */
  @Delete('{id}')
  @OperationId('delete_server')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors or storage areas still use this server')
  public async remove(@Path() id: Id): Promise<void> {
    await this.servers.remove(id);
  }
}
