import { Get, OperationId, Response, Route, Tags } from '@tsoa/runtime';
import type { AppResponseError, MessageResponse } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import { ServerService } from './server-service.js';

export interface VersionResponse {
  /** ZoneMinder's installed version (Config ZM_DYN_CURR_VERSION), or "unknown". */
  version: string;
  /** This service's version. */
  api_version: string;
  /** ZoneMinder's schema version (Config ZM_DYN_DB_VERSION), or "unknown". */
  db_version: string;
}

@Route('api/v3')
@Tags('Server')
export class ServerController extends FeatureController {
  /** Liveness and database reachability. Public. */
  @Get('server/health_check')
  @OperationId('health_check')
  @Response<AppResponseError>(503, 'Database unreachable')
  public async healthCheck(): Promise<MessageResponse> {
    await this.services.get(ServerService).checkHealth();
    return { message: 'Ok' };
  }

  /** Versions of ZoneMinder, its schema and this API. Public. */
  @Get('host/getVersion')
  @OperationId('get_version')
  @Response<MessageResponse>(500, 'Internal error')
  public async getVersion(): Promise<VersionResponse> {
    return this.services.get(ServerService).version();
  }
}
