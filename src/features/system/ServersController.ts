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
  @OperationId('list_servers')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedServersResponse> {
    return this.servers.list(page, page_size);
  }

  /** Creates a server with every field of ServerResponse settable. */
  @Post()
  @OperationId('create_server')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateServerRequest): Promise<ServerResponse> {
    return this.servers.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_server')
  public async get(@Path() id: number): Promise<ServerResponse> {
    return this.servers.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_server')
  public async update(@Path() id: number, @Body() body: UpdateServerRequest): Promise<ServerResponse> {
    return this.servers.update(id, body);
  }

  /**
   * Deletes a server no monitor or storage area is assigned to.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_server')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(409, 'Monitors or storage areas still use this server')
  public async remove(@Path() id: number): Promise<void> {
    await this.servers.remove(id);
  }
}
