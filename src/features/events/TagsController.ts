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
import type { PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  TagsService,
  type CreateTagRequest,
  type TagDetailResponse,
  type TagResponse,
  type UpdateTagRequest,
} from './tags-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedTagsResponse extends Page<TagResponse> {}

@Route('api/v3/tags')
@Tags('Tags')
@Security('jwt', ['events'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Events permission required')
export class TagsController extends FeatureController {
  private readonly tags = this.services.get(TagsService);

  /**
   * Lists tags in Id order; `event_count` counts only events of monitors the caller may see.
   * @param page 1-based page number (default 1).
   * @isLong page
   * @minimum page 0
   */
  @Get()
  @OperationId('list_tags')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: number,
    @Query() page_size?: PageSize,
  ): Promise<PaginatedTagsResponse> {
    return this.tags.list(currentUser(req), page, page_size);
  }

  /** Creates a tag; the creator is the caller. A name already in use is a 409. */
  @Post()
  @OperationId('create_tag')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'Name already in use')
  public async create(@Request() req: ExRequest, @Body() body: CreateTagRequest): Promise<TagResponse> {
    return this.tags.create(currentUser(req), body);
  }

  /**
   * A tag with one page of its events (newest first), only events of monitors the caller may see.
   * @param page 1-based page of events (default 1).
   * @param page_size Events per page, at most 1000 (default 25).
   * @isLong id must be an integer >= 0
   * @minimum id 0
   * @isLong page
   * @minimum page 0
   */
  @Get('{id}')
  @OperationId('get_tag')
  public async get(
    @Request() req: ExRequest,
    @Path() id: number,
    @Query() page?: number,
    @Query() page_size?: PageSize,
  ): Promise<TagDetailResponse> {
    return this.tags.get(currentUser(req), id, page, page_size);
  }

  /**
   * @isLong id must be an integer >= 0
   * @minimum id 0
   */
  @Patch('{id}')
  @OperationId('update_tag')
  @Response<AppResponseError>(409, 'Name already in use')
  public async update(
    @Request() req: ExRequest,
    @Path() id: number,
    @Body() body: UpdateTagRequest,
  ): Promise<TagResponse> {
    return this.tags.update(currentUser(req), id, body);
  }

  /**
   * Deletes the tag and its assignments.
   * @isLong id must be an integer >= 0
   * @minimum id 0
   */
  @Delete('{id}')
  @OperationId('delete_tag')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.tags.remove(id);
  }
}
