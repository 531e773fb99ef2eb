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
import type { PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  SessionsService,
  type CreateSessionRequest,
  type SessionResponse,
  type UpdateSessionRequest,
} from './sessions-service.js';

export interface PaginatedSessionsResponse extends Page<SessionResponse> {}

@Route('api/v3/sessions')
@Tags('Sessions')
// A session id is a logged-in ZoneMinder web user's cookie: reading it is as strong as
// impersonating that user, so reads need System Edit too, not View (a deliberate exception).
@Security('jwt', ['system:Edit'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(
  403,
  'System Edit permission required, even to read: session ids are ZoneMinder web credentials',
)
export class SessionsController extends FeatureController {
  private readonly sessions = this.services.get(SessionsService);

  /**
   * Lists ZoneMinder web sessions.
   */
  @Get()
  @OperationId('list_sessions')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedSessionsResponse> {
    return this.sessions.list(page, page_size);
  }

  @Post()
  @OperationId('create_session')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'A session with this id exists')
  public async create(@Body() body: CreateSessionRequest): Promise<SessionResponse> {
    return this.sessions.create(body);
  }

  /**
   * @param id PHP session id.
   * @pattern id ^[A-Za-z0-9,-]{1,32}$
   * @maxLength id 32
   */
  @Get('{id}')
  @OperationId('get_session')
  @Response<AppResponseError>(404, 'No such session')
  public async get(@Path() id: string): Promise<SessionResponse> {
    return this.sessions.get(id);
  }

  /**
   * @param id PHP session id.
   * @pattern id ^[A-Za-z0-9,-]{1,32}$
   * @maxLength id 32
   */
  @Patch('{id}')
  @OperationId('update_session')
  @Response<AppResponseError>(404, 'No such session')
  public async update(@Path() id: string, @Body() body: UpdateSessionRequest): Promise<SessionResponse> {
    return this.sessions.update(id, body);
  }

  /**
   * @param id PHP session id.
   * @pattern id ^[A-Za-z0-9,-]{1,32}$
   * @maxLength id 32
   */
  @Delete('{id}')
  @OperationId('delete_session')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'No such session')
  public async remove(@Path() id: string): Promise<void> {
    await this.sessions.remove(id);
  }
}
