import { Get, OperationId, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import type { RetentionStatus } from './retention-service.js';
import { RetentionService } from './retention-service.js';

@Route('api/v3/retention')
@Tags('Retention')
@Security('jwt', ['system'])
@Response<AppResponseError>(403, 'System permission required')
export class RetentionController extends FeatureController {
  /**
   * Recording retention: the limits in force per Storage, the figures measured now (free space
   * by statvfs on the Storage's path, summed event sizes when a quota is set), the last pass's
   * result and when the next pass runs.
   */
  @Get('status')
  @OperationId('get_retention_status')
  public async status(): Promise<RetentionStatus> {
    return this.services.get(RetentionService).status();
  }
}
