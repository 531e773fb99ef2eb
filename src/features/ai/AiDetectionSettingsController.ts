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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isInt monitor_id must be an integer >= 0
   * @minimum monitor_id 0
   * @maximum monitor_id 2147483647
   * @isInt object_class_id must be an integer >= 0
   * @minimum object_class_id 0
   * @maximum object_class_id 2147483647
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_ai_detection_settings')
  public async list(
    @Request() req: ExRequest,
    @Query() monitor_id?: number,
    @Query() object_class_id?: number,
    @Query() page?: number,
    @Query() page_size?: number,
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

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_ai_detection_setting')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async get(@Request() req: ExRequest, @Path() id: number): Promise<AiDetectionSettingResponse> {
    return this.service.get(user(req), id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_ai_detection_setting')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  @Response<AppResponseError>(409, 'The monitor already has a setting for this object class')
  public async update(
    @Request() req: ExRequest,
    @Path() id: number,
    @Body() body: UpdateAiDetectionSettingRequest,
  ): Promise<AiDetectionSettingResponse> {
    return this.service.update(user(req), id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_ai_detection_setting')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the monitor is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: number): Promise<void> {
    await this.service.remove(user(req), id);
  }
}
