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
  SnapshotsService,
  type CreateSnapshotRequest,
  type SnapshotResponse,
  type UpdateSnapshotRequest,
} from './snapshots-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedSnapshotsResponse extends Page<SnapshotResponse> {}

@Route('api/v3/snapshots')
@Tags('Snapshots')
@Security('jwt', ['snapshots'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Snapshots permission required')
export class SnapshotsController extends FeatureController {
  private readonly snapshots = this.services.get(SnapshotsService);

  /**
   * Lists snapshots in Id order.
   * @param page 1-based page number (default 1).
   * @isLong page
   * @minimum page 0
   */
  @Get()
  @OperationId('list_snapshots')
  public async list(@Query() page?: number, @Query() page_size?: PageSize): Promise<PaginatedSnapshotsResponse> {
    return this.snapshots.list(page, page_size);
  }

  /** Creates a snapshot; `created_by` is always the caller, `created_on` defaults to now. */
  @Post()
  @OperationId('create_snapshot')
  @SuccessResponse(201, 'Created')
  public async create(@Request() req: ExRequest, @Body() body: CreateSnapshotRequest): Promise<SnapshotResponse> {
    return this.snapshots.create(currentUser(req), body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Get('{id}')
  @OperationId('get_snapshot')
  public async get(@Path() id: number): Promise<SnapshotResponse> {
    return this.snapshots.get(id);
  }

  /**
   * Partial update; `created_by` never changes.
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Patch('{id}')
  @OperationId('update_snapshot')
  public async update(@Path() id: number, @Body() body: UpdateSnapshotRequest): Promise<SnapshotResponse> {
    return this.snapshots.update(id, body);
  }

  /**
   * Deletes the snapshot and its event rows (the events themselves stay).
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Delete('{id}')
  @OperationId('delete_snapshot')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.snapshots.remove(id);
  }
}
