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
import type { Id } from '../../api/params.js';
import {
  LiveService,
  type LiveSourcesResponse,
  type LiveStatsResponse,
  type StartLiveRequest,
  type StartLiveResponse,
} from './live-service.js';
import { FeatureController } from '../feature-controller.js';
import { clusterList, itemsByServer, type ListScope } from '../../infra/cluster/cluster-lists.js';
import { currentUser } from '../../auth/request-user.js';

const user = (req: ExRequest) => currentUser(req);

// Live sessions (docs/contract/clients.md). Stream View for every method, POST and DELETE included
// (Stream has no Edit level); hidden monitors are 404. The HLS media routes are plain handlers
// (src/features/live/live-routes.ts); the WebRTC WebSocket lives beside them.
@Route('api/v3/live')
@Tags('Live Streaming')
@Security('jwt', ['stream:View'])
@Response<AppResponseError>(403, 'Stream permission required')
@Response<AppResponseError>(503, 'Live streaming is disabled (streaming.enabled = false)')
export class LiveController extends FeatureController {
  private readonly live = this.services.get(LiveService);

  /**
   * Monitor ids that have an HLS session (those the caller may see).
   * @param scope `cluster` (multi-server): the ids of every host, each host asked with the
   * caller's token; hosts that failed are named in the `X-Zmgate-Cluster-Incomplete` header
   * (`<server id> <name> <unreachable|timeout|error>`, comma-separated) and leave the list
   * otherwise complete. On a single server the same as `local` (the default).
   */
  @Get('sessions')
  @OperationId('listLiveSessions')
  public async sessions(@Request() req: ExRequest, @Query() scope?: ListScope): Promise<number[]> {
    return clusterList(
      this.services,
      req,
      scope,
      {
        path: '/live/sessions',
        local: () => this.live.sessions(user(req)),
        merge: (parts) => [...new Set(parts.flatMap((p) => p.body ?? []))].sort((x, y) => x - y),
      },
      (name, value) => this.setHeader(name, value),
    );
  }

  /**
   * The live sources the caller may see: monitors with a stream socket (codec, whether a reader
   * is connected, viewers, `hls` and `webrtc` URLs), and monitors without one whose shared memory
   * exists (stock ZoneMinder), offered as MJPEG (`codec: "MJPEG"`, `mjpeg` URL).
   * @param scope `cluster` (multi-server): the sources of every host, each with `server_id` and
   * `server_name`, `active_sources` summed, and `servers` saying which hosts answered (a host that
   * failed is listed there and in the `X-Zmgate-Cluster-Incomplete` header, it does not fail the
   * list). Each host is asked with the caller's token. On a single server the same as `local`.
   */
  @Get('sources')
  @OperationId('getLiveSources')
  public async sources(@Request() req: ExRequest, @Query() scope?: ListScope): Promise<LiveSourcesResponse> {
    return clusterList(
      this.services,
      req,
      scope,
      {
        path: '/live/sources',
        local: () => this.live.sources(user(req)),
        merge: (parts) => ({
          active_sources: parts.reduce((n, p) => n + (p.body?.active_sources ?? 0), 0),
          sources: itemsByServer(parts, (body) => body.sources).sort(
            (x, y) => x.monitor_id - y.monitor_id || x.server_id - y.server_id,
          ),
          servers: parts.map((p) => p.server),
        }),
      },
      (name, value) => this.setHeader(name, value),
    );
  }

  /**
   * Starts the monitor's HLS session (LL-HLS packaging from its stream socket). `enable_webrtc`
   * only adds `webrtc_signaling` to the answer: the WebSocket needs no session.
   */
  @Post('{monitor_id}/start')
  @OperationId('startLiveStream')
  @Response<AppResponseError>(400, 'Invalid monitor id or body')
  @Response<AppResponseError>(
    404,
    'Monitor not found or hidden, or its stream socket is not available (details: reason)',
  )
  @Response<AppResponseError>(409, 'A session exists already (whatever its status)')
  public async start(
    @Request() req: ExRequest,
    @Path() monitor_id: Id,
    @Body() body?: StartLiveRequest,
  ): Promise<StartLiveResponse> {
    return this.live.start(user(req), monitor_id, body ?? {});
  }

  /**
   * Stops the monitor's HLS session; 204 whether or not one existed.
   */
  @Delete('{monitor_id}/stop')
  @OperationId('stopLiveStream')
  @SuccessResponse(204, 'Stopped (or there was nothing to stop)')
  @Response<AppResponseError>(400, 'Invalid monitor id')
  @Response<AppResponseError>(404, 'Monitor hidden from this account')
  public async stop(@Request() req: ExRequest, @Path() monitor_id: Id): Promise<void> {
    await this.live.stop(user(req), monitor_id);
  }

  /**
   * The HLS session's status and counters; 404 without a session. Accepts the token as
   * `?token=` too (a player page may poll it with the URL it plays).
   */
  @Get('{monitor_id}/stats')
  @OperationId('getLiveStats')
  @Response<AppResponseError>(400, 'Invalid monitor id')
  @Response<AppResponseError>(
    404,
    'No HLS session (SESSION_NOT_FOUND), or the monitor is hidden or missing (MONITOR_NOT_FOUND)',
  )
  public async stats(@Request() req: ExRequest, @Path() monitor_id: Id): Promise<LiveStatsResponse> {
    return this.live.stats(user(req), monitor_id);
  }
}
