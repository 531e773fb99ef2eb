import { Get, OperationId, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import { LocaleService, type LocaleResponse } from './locale-service.js';

@Route('api/v3/system')
@Tags('Server')
export class LocaleController extends FeatureController {
  private readonly locale = this.services.get(LocaleService);

  /** ZoneMinder's time zone, its current UTC offset and date/time display patterns. Any valid token. */
  @Get('locale')
  @OperationId('get_locale')
  @Security('jwt', ['authenticated'])
  @Response<AppResponseError>(500, 'Database error')
  public async get(): Promise<LocaleResponse> {
    return this.locale.get();
  }
}
