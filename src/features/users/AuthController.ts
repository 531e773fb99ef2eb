import { Body, Get, OperationId, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import type { AppResponseError, MessageResponse } from '../../api/envelopes.js';
import { FeatureController } from '../feature-controller.js';
import { currentUser } from '../../auth/request-user.js';

export interface LoginRequest {
  username: string;
  password: string;
}

export interface RefreshTokenRequest {
  /** The refresh token of an earlier login or refresh. */
  token: string;
}

export interface TokenResponse {
  /** Always `Bearer`. */
  token_type: string;
  access_token: string;
  refresh_token: string;
  /**
   * Seconds until the access token expires.
   * @isInt
   * @minimum 0
   */
  expire_in: number;
}

@Route('api/v3/auth')
@Tags('Auth')
export class AuthController extends FeatureController {
  /** Exchanges a username and password for an access token (10 min) and a refresh token (1 h). */
  @Post('login')
  @OperationId('login')
  @Response<AppResponseError>(400, 'Invalid input')
  @Response<AppResponseError>(401, 'Invalid username or password')
  @Response<AppResponseError>(429, 'Too many attempts')
  @Response<AppResponseError>(500, 'Internal error')
  public async login(@Body() body: LoginRequest): Promise<TokenResponse> {
    return this.services.auth.login(body.username, body.password);
  }

  /** Exchanges a refresh token for a new access and refresh token pair. */
  @Post('refresh')
  @OperationId('refresh_token')
  @Response<AppResponseError>(400, 'Invalid input')
  @Response<AppResponseError>(401, 'Invalid, expired or revoked refresh token')
  @Response<AppResponseError>(500, 'Internal error')
  public async refresh(@Body() body: RefreshTokenRequest): Promise<TokenResponse> {
    return this.services.auth.refresh(body.token);
  }

  /** Revokes every token of the caller's account, on every device. */
  @Get('logout')
  @OperationId('logout')
  @Security('jwt', ['authenticated'])
  public async logout(@Request() req: ExRequest): Promise<MessageResponse> {
    await this.services.auth.revokeAll(currentUser(req).id);
    return { message: 'Logged out' };
  }
}
