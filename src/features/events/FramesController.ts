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
import type { BigId, PageNumber, PageSize } from '../../api/params.js';
import { FeatureController } from '../feature-controller.js';
import {
  FramesService,
  type CreateFrameRequest,
  type FrameResponse,
  type PaginatedFramesResponse,
  type UpdateFrameRequest,
} from './frames-service.js';
import { currentUser } from '../../auth/request-user.js';

@Route('api/v3/frames')
@Tags('Frames')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Events permission required')
export class FramesController extends FeatureController {
  private readonly frames = this.services.get(FramesService);

  /**
   * Lists frames in Id order; with `event_id`, the frames of that event (none when the event
   * is missing or hidden).
   * @param event_id Only frames of this event.
   */
  @Get()
  @OperationId('list_frames')
  public async list(
    @Request() req: ExRequest,
    @Query() event_id?: BigId,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedFramesResponse> {
    return this.frames.list(currentUser(req), event_id, page, page_size);
  }

  @Post()
  @OperationId('create_frame')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateFrameRequest): Promise<FrameResponse> {
    return this.frames.create(currentUser(req), body);
  }

  @Get('{id}')
  @OperationId('get_frame')
  @Response<AppResponseError>(404, 'No such frame, or its event is hidden')
  public async get(@Request() req: ExRequest, @Path() id: BigId): Promise<FrameResponse> {
    return this.frames.get(currentUser(req), id);
  }

  @Patch('{id}')
  @OperationId('update_frame')
  @Response<AppResponseError>(404, 'No such frame, or its event is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: BigId,
    @Body() body: UpdateFrameRequest,
  ): Promise<FrameResponse> {
    return this.frames.update(currentUser(req), id, body);
  }

  @Delete('{id}')
  @OperationId('delete_frame')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'No such frame, or its event is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: BigId): Promise<void> {
    await this.frames.remove(currentUser(req), id);
  }
}
