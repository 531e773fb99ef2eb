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
import type { BigId, Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  AiDetectionsService,
  type CreateAiDetectionRequest,
  type AiDetectionResponse,
  type UpdateAiDetectionRequest,
} from './ai-detections-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedAiDetectionsResponse extends Page<AiDetectionResponse> {}

const user = (req: ExRequest) => currentUser(req);

// AI detections (AI_Detections): objects found in event frames. Event data: gated on Events, with
// the monitor row ACL through each detection's event.
@Route('api/v3/ai/detections')
@Tags('AI')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input: unknown event or object class, a frame of another event')
@Response<AppResponseError>(403, 'Events permission required')
export class AiDetectionsController extends FeatureController {
  private readonly service = this.services.get(AiDetectionsService);

  /**
   * Lists AI detections of the events the caller may see.
   * @param event_id Only detections of this event.
   * @param object_class_id Only detections of this object class.
   */
  @Get()
  @OperationId('list_ai_detections')
  public async list(
    @Request() req: ExRequest,
    @Query() event_id?: BigId,
    @Query() object_class_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedAiDetectionsResponse> {
    return this.service.list(user(req), event_id, object_class_id, page, page_size);
  }

  @Post()
  @OperationId('create_ai_detection')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateAiDetectionRequest): Promise<AiDetectionResponse> {
    return this.service.create(user(req), body);
  }

  @Get('{id}')
  @OperationId('get_ai_detection')
  @Response<AppResponseError>(404, 'Not found, or the monitor of the event is hidden')
  public async get(@Request() req: ExRequest, @Path() id: BigId): Promise<AiDetectionResponse> {
    return this.service.get(user(req), id);
  }

  @Patch('{id}')
  @OperationId('update_ai_detection')
  @Response<AppResponseError>(404, 'Not found, or the monitor of the event is hidden')
  public async update(
    @Request() req: ExRequest,
    @Path() id: BigId,
    @Body() body: UpdateAiDetectionRequest,
  ): Promise<AiDetectionResponse> {
    return this.service.update(user(req), id, body);
  }

  @Delete('{id}')
  @OperationId('delete_ai_detection')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the monitor of the event is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: BigId): Promise<void> {
    await this.service.remove(user(req), id);
  }
}
