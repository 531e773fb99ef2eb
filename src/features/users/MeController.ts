import { Body, Get, OperationId, Put, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { UserResponse } from './users-service.js';
import type { AppResponseError, MessageResponse } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import { MeService } from './me-service.js';
import { currentUser } from '../../auth/request-user.js';

export interface MeResponse {
  user: UserResponse;
  /** `access` */
  token_type: string;
  /**
   * Unix seconds.
   * @isInt
   */
  issued_at: number;
  /**
   * Unix seconds.
   * @isInt
   */
  expires_at: number;
}

export interface ChangePasswordRequest {
  current_password: string;
  new_password: string;
}

@Route('api/v3/me')
@Tags('Auth')
export class MeController extends FeatureController {
  /** The caller's account and token times; any authenticated account may call it. */
  @Get()
  @OperationId('me')
  @Security('jwt', ['authenticated'])
  public async me(@Request() req: ExRequest): Promise<MeResponse> {
    return this.services.get(MeService).describe(currentUser(req));
  }

  /** Changes the caller's password; every token of the account is revoked. */
  @Put('password')
  @OperationId('change_password')
  @Security('jwt', ['authenticated'])
  @Response<AppResponseError>(400, 'Invalid input')
  @Response<AppResponseError>(401, 'Missing token or wrong current password')
  public async changePassword(
    @Request() req: ExRequest,
    @Body() body: ChangePasswordRequest,
  ): Promise<MessageResponse> {
    await this.services.auth.changePassword(currentUser(req), body.current_password, body.new_password);
    return { message: 'Password changed' };
  }
}
