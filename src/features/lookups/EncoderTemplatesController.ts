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
  EncoderTemplatesService,
  type CreateEncoderTemplateRequest,
  type EncoderTemplateResponse,
  type UpdateEncoderTemplateRequest,
} from './encoder-templates-service.js';

export interface PaginatedEncoderTemplatesResponse extends Page<EncoderTemplateResponse> {}

// Encoder parameter templates (EncoderTemplates). Monitor configuration: gated on Monitors.
@Route('api/v3/encoder-templates')
@Tags('Encoder Templates')
@Security('jwt', ['monitors'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Monitors permission required')
export class EncoderTemplatesController extends FeatureController {
  private readonly service = this.services.get(EncoderTemplatesService);

  /**
   * Lists encoder templates.
   * @param encoder Only templates of this encoder (exact match).
   */
  @Get()
  @OperationId('list_encoder_templates')
  public async list(
    @Query() encoder?: string,
    @Query() page?: PageNumber,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedEncoderTemplatesResponse> {
    return this.service.list(encoder, page, page_size);
  }

  @Post()
  @OperationId('create_encoder_template')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'This encoder already has a template with this name')
  public async create(@Body() body: CreateEncoderTemplateRequest): Promise<EncoderTemplateResponse> {
    return this.service.create(body);
  }

  @Get('{id}')
  @OperationId('get_encoder_template')
  public async get(@Path() id: Id): Promise<EncoderTemplateResponse> {
    return this.service.get(id);
  }

  @Patch('{id}')
  @OperationId('update_encoder_template')
  @Response<AppResponseError>(409, 'This encoder already has a template with this name')
  public async update(@Path() id: Id, @Body() body: UpdateEncoderTemplateRequest): Promise<EncoderTemplateResponse> {
    return this.service.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_encoder_template')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.service.remove(id);
  }
}
