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
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  AiDetectionSettingsService,
  type CreateAiDetectionSettingRequest,
  type AiDetectionSettingResponse,
  type UpdateAiDetectionSettingRequest,
} from './ai-detection-settings-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedAiDetectionSettingsResponse extends Page<AiDetectionSettingResponse> {}

const user = (req: ExRequest) => currentUser(req);

// Per-monitor AI detection settings (AI_Detection_Settings). Monitor configuration: gated on
// Monitors, with the monitor row ACL (see AiDetectionSettingsService).
@Route('api/v3/ai/detection-settings')
@Tags('AI')
@Security('jwt', ['monitors'])
@Response<AppResponseError>(400, 'Invalid input: unknown monitor or object class, bad colour')
@Response<AppResponseError>(
  403,
  'Monitors permission required, the monitor is view-only, or site-wide rows need an unrestricted account',
)
export class AiDetectionSettingsController extends FeatureController {
  private readonly service = this.services.get(AiDetectionSettingsService);

  /**
   * Lists AI detection settings of the monitors the caller may see, and the site-wide defaults.
   * @param monitor_id Only rows of this monitor.
   * @param object_class_id Only rows of this object class.
   */
  @Get()
  @OperationId('list_ai_detection_settings')
  public async list(
    @Request() req: ExRequest,
    @Query() monitor_id?: Id,
    @Query() object_class_id?: Id,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedAiDetectionSettingsResponse> {
    return this.service.list(user(req), monitor_id, object_class_id, page, page_size);
  }

  @Post()
  @OperationId('create_ai_detection_setting')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'The monitor already has a setting for this object class')
  public async create(
    @Request() req: ExRequest,
    @Body() body: CreateAiDetectionSettingRequest,
  ): Promise<AiDetectionSettingResponse> {
    return this.service.create(user(req), body);
  }

  @Get('{id}')
  @OperationId('get_ai_detection_setting')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: Id): Promise<AiDetectionSettingResponse> {
    return this.service.get(user(req), id);
  }

  @Patch('{id}')
  @OperationId('update_ai_detection_setting')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  @Response<AppResponseError>(409, 'The monitor already has a setting for this object class')
  public async update(
    @Request() req: ExRequest,
    @Path() id: Id,
    @Body() body: UpdateAiDetectionSettingRequest,
  ): Promise<AiDetectionSettingResponse> {
    return this.service.update(user(req), id, body);
  }

  @Delete('{id}')
  @OperationId('delete_ai_detection_setting')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: Id): Promise<void> {
    await this.service.remove(user(req), id);
  }
}
