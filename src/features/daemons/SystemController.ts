import { Body, Deprecated, Get, OperationId, Path, Post, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import type { DaemonActionResponse } from './daemons-service.js';
import {
  SystemService,
  type ApplyStateRequest,
  type ServerControlResponse,
  type SystemStatusResponse,
} from './system-service.js';

@Route('api/v3/system')
@Tags('System')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System permission required (View to read, Edit for actions)')
export class SystemController extends FeatureController {
  private readonly system = this.services.get(SystemService);

  /** Supervisor state, daemons, CPU (from a delta), memory and the disk of the event storage. */
  @Get('status')
  @OperationId('get_system_status')
  @Response<AppResponseError>(503, 'Daemon manager not available (passive mode)')
  public async status(): Promise<SystemStatusResponse> {
    return this.system.status();
  }

  /** Starts every daemon ZoneMinder would start, and resumes reconciliation. */
  @Post('startup')
  @OperationId('system_startup')
  @Response<AppResponseError>(503, 'Daemon manager not available (passive mode)')
  public async startup(): Promise<DaemonActionResponse> {
    return this.system.startup();
  }

  /** Stops every daemon; nothing is started again until startup. */
  @Post('shutdown')
  @OperationId('system_shutdown')
  @Response<AppResponseError>(503, 'Daemon manager not available (passive mode)')
  public async shutdown(): Promise<DaemonActionResponse> {
    return this.system.shutdown();
  }

  @Post('restart')
  @OperationId('system_restart')
  @Response<AppResponseError>(503, 'Daemon manager not available (passive mode)')
  public async restart(): Promise<DaemonActionResponse> {
    return this.system.restart();
  }

  /** Hang-up signal to every running daemon. */
  @Post('logrot')
  @OperationId('system_logrot')
  @Response<AppResponseError>(503, 'Daemon manager not available (passive mode)')
  public async logrot(): Promise<DaemonActionResponse> {
    return this.system.logrot();
  }

  /** Applies a run state (States row) to the monitors; in takeover mode the daemons are then restarted. */
  @Post('state')
  @OperationId('apply_state')
  @Response<AppResponseError>(400, 'Invalid input or a definition that cannot be applied')
  @Response<AppResponseError>(404, 'No state of that name')
  public async applyState(@Body() body: ApplyStateRequest): Promise<DaemonActionResponse> {
    return this.system.applyState(body);
  }
}

@Route('api/v3/server')
@Tags('Server')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System Edit required')
export class ServerControlController extends FeatureController {
  private readonly system = this.services.get(SystemService);

  /** start, stop or restart ZoneMinder: the supervisor in takeover mode, zoneminder.service otherwise. */
  @Post('control/{action}')
  @OperationId('change_state')
  @Response<AppResponseError>(400, 'action must be start, stop or restart')
  @Response<AppResponseError>(502, 'systemctl failed')
  public async control(@Path() action: string): Promise<ServerControlResponse> {
    return this.system.control(action);
  }
}

/**
 * The reference's older name for POST /api/v3/server/control/{action}: its router serves both with
 * one handler and the same System gate, and lists only the new one in its OpenAPI document.
 */
@Route('api/v3/states')
@Tags('Server')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System Edit required')
export class StatesChangeController extends FeatureController {
  private readonly system = this.services.get(SystemService);

  /** Deprecated alias of POST /api/v3/server/control/{action}: same answers. */
  @Post('change/{action}')
  @Deprecated()
  @OperationId('change_state_deprecated')
  @Response<AppResponseError>(400, 'action must be start, stop or restart')
  @Response<AppResponseError>(502, 'systemctl failed')
  public async control(@Path() action: string): Promise<ServerControlResponse> {
    return this.system.control(action);
  }
}
