import { Body, Get, OperationId, Path, Post, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import { clusterList, itemsByServer, type ListScope } from '../../infra/cluster/cluster-lists.js';
import {
  DaemonsService,
  type DaemonActionResponse,
  type DaemonListResponse,
  type DaemonStatusResponse,
  type StartDaemonRequest,
} from './daemons-service.js';

/**
 * ZoneMinder's daemons under zmgate's supervisor (takeover mode). `{id}` is zmdc's key, URL-encoded,
 * e.g. `zmc%20-m%201`. Actions answer 200 with `success: false` when the daemon is not running.
 */
@Route('api/v3/daemons')
@Tags('Daemons')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System permission required (View to read, Edit for actions)')
@Response<AppResponseError>(503, 'Daemon manager not available (passive mode)')
export class DaemonsController extends FeatureController {
  private readonly daemons = this.services.get(DaemonsService);

  /**
   * Every daemon the supervisor knows, with its state.
   * @param scope `cluster` (multi-server): the daemons of every host, each with `server_id` and
   * `server_name`, and `servers` saying which hosts answered (a passive host, 503, or one that
   * failed is listed there and in the `X-Zmgate-Cluster-Incomplete` header; it does not fail the
   * list). Each host is asked with the caller's token. On a single server the same as `local`.
   */
  @Get()
  @OperationId('list_daemons')
  public async list(@Request() req: ExRequest, @Query() scope?: ListScope): Promise<DaemonListResponse> {
    return clusterList(
      this.services,
      req,
      scope,
      {
        path: '/daemons',
        local: () => this.daemons.list(),
        merge: (parts) => ({
          daemons: itemsByServer(parts, (body) => body.daemons),
          servers: parts.map((p) => p.server),
        }),
      },
      (name, value) => this.setHeader(name, value),
    );
  }

  @Get('{id}')
  @OperationId('get_daemon')
  @Response<AppResponseError>(404, 'Unknown daemon')
  public async get(@Path() id: string): Promise<DaemonStatusResponse> {
    return this.daemons.get(id);
  }

  /** Starts the daemon; `args` are appended to those in the id. */
  @Post('{id}/start')
  @OperationId('start_daemon')
  @Response<AppResponseError>(400, "An argument outside zmdc.pl's whitelist")
  @Response<AppResponseError>(404, 'Not a ZoneMinder daemon')
  public async start(@Path() id: string, @Body() body?: StartDaemonRequest | null): Promise<DaemonActionResponse> {
    return this.daemons.start(id, body);
  }

  /** TERM, then KILL after daemon.stop_grace_secs; not restarted. */
  @Post('{id}/stop')
  @OperationId('stop_daemon')
  @Response<AppResponseError>(404, 'Unknown daemon')
  public async stop(@Path() id: string): Promise<DaemonActionResponse> {
    return this.daemons.stop(id);
  }

  @Post('{id}/restart')
  @OperationId('restart_daemon')
  @Response<AppResponseError>(404, 'Unknown daemon')
  public async restart(@Path() id: string): Promise<DaemonActionResponse> {
    return this.daemons.restart(id);
  }

  /** Sends a hang-up signal so the daemon reloads its configuration. */
  @Post('{id}/reload')
  @OperationId('reload_daemon')
  @Response<AppResponseError>(404, 'Unknown daemon')
  public async reload(@Path() id: string): Promise<DaemonActionResponse> {
    return this.daemons.reload(id);
  }
}
