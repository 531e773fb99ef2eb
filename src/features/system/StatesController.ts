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
  StatesService,
  type CreateStateRequest,
  type StateResponse,
  type UpdateStateRequest,
} from './states-service.js';

export interface PaginatedStatesResponse extends Page<StateResponse> {}

@Route('api/v3/states')
@Tags('States')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input, or a definition ZoneMinder could not apply')
@Response<AppResponseError>(403, 'System permission required')
export class StatesController extends FeatureController {
  private readonly states = this.services.get(StatesService);

  /**
   * Lists run states.
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
  @OperationId('list_states')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedStatesResponse> {
    return this.states.list(page, page_size);
  }

  @Post()
  @OperationId('create_state')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A state with this name exists')
  public async create(@Body() body: CreateStateRequest): Promise<StateResponse> {
    return this.states.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_state')
  public async get(@Path() id: number): Promise<StateResponse> {
    return this.states.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  // Renamed from the reference's `update_state`, which /monitors/{id}/state also used (spec Versioning 4).
  @OperationId('update_state_preset')
  @Response<AppResponseError>(409, 'A state with this name exists')
  public async update(@Path() id: number, @Body() body: UpdateStateRequest): Promise<StateResponse> {
    return this.states.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_state')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.states.remove(id);
  }
}
