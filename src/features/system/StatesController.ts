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
   */
  @Get()
  @OperationId('list_states')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedStatesResponse> {
    return this.states.list(page, page_size);
  }

  @Post()
  @OperationId('create_state')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A state with this name exists')
  public async create(@Body() body: CreateStateRequest): Promise<StateResponse> {
    return this.states.create(body);
  }

  @Get('{id}')
  @OperationId('get_state')
  public async get(@Path() id: Id): Promise<StateResponse> {
    return this.states.get(id);
  }

  @Patch('{id}')
  // Renamed from the reference's `update_state`, which /monitors/{id}/state also used (spec Versioning 4).
  @OperationId('update_state_preset')
  @Response<AppResponseError>(409, 'A state with this name exists')
  public async update(@Path() id: Id, @Body() body: UpdateStateRequest): Promise<StateResponse> {
    return this.states.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_state')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.states.remove(id);
  }
}
