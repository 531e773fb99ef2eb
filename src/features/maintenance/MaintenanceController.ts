import { Get, OperationId, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import type { JobStatus } from './scheduler.js';
import { Maintenance } from './index.js';

export interface MaintenanceStatusResponse {
  jobs: JobStatus[];
}

@Route('api/v3/maintenance')
@Tags('Maintenance')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System permission required')
export class MaintenanceController extends FeatureController {
  /** Each maintenance job: whether it is enabled, its last pass (time, duration, counts, error) and its next run. */
  @Get('status')
  @OperationId('get_maintenance_status')
  public async status(): Promise<MaintenanceStatusResponse> {
    return { jobs: this.services.get(Maintenance).status() };
  }
}
