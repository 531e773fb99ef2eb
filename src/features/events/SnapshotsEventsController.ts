import {
  Body,
  Delete,
  Get,
  OperationId,
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
  SnapshotEventsService,
  type CreateSnapshotEventRequest,
  type SnapshotEventResponse,
} from './snapshots-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface PaginatedSnapshotEventsResponse extends Page<SnapshotEventResponse> {}

@Route('api/v3/snapshots-events')
@Tags('Snapshots Events')
@Security('jwt', ['snapshots'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Snapshots permission required')
export class SnapshotsEventsController extends FeatureController {
  private readonly snapshotEvents = this.services.get(SnapshotEventsService);

  /**
   * Lists the events of snapshots, only events of monitors the caller may see, in Id order.
   * @param snapshot_id Only the events of this snapshot.
   * @param page 1-based page number (default 1).
   * @isInt snapshot_id must be an integer >= 0
   * @minimum snapshot_id 0
   * @isLong page
   * @minimum page 0
   */
  @Get()
  @OperationId('list_snapshot_events')
  public async list(
    @Request() req: ExRequest,
    @Query() page?: number,
    @Query() page_size?: PageSize,
    @Query() snapshot_id?: number,
  ): Promise<PaginatedSnapshotEventsResponse> {
    return this.snapshotEvents.list(currentUser(req), { snapshot_id, page, page_size });
  }

  /** Adds an event to a snapshot; both must exist and the event be visible (400 otherwise). */
  @Post()
  @OperationId('create_snapshot_event')
  @SuccessResponse(201, 'Created')
  public async create(
    @Request() req: ExRequest,
    @Body() body: CreateSnapshotEventRequest,
  ): Promise<SnapshotEventResponse> {
    return this.snapshotEvents.create(currentUser(req), body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Get('{id}')
  @OperationId('get_snapshot_event')
  @Response<AppResponseError>(404, 'Not found, or the event is hidden')
  public async get(@Request() req: ExRequest, @Path() id: number): Promise<SnapshotEventResponse> {
    return this.snapshotEvents.get(currentUser(req), id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   */
  @Delete('{id}')
  @OperationId('delete_snapshot_event')
  @SuccessResponse(204, 'Deleted')
  @Response<AppResponseError>(404, 'Not found, or the event is hidden')
  public async remove(@Request() req: ExRequest, @Path() id: number): Promise<void> {
    await this.snapshotEvents.remove(currentUser(req), id);
  }
}
