// /me: the caller's account as UserResponse plus the token's times, and the caller's password change.
import type { MessageResponse } from '../../api/envelopes.js';
import type { AuthService, AuthUser } from '../../auth/auth-service.js';
import type { UserDirectory } from '../../auth/user-directory.js';
import { UnauthorizedError } from '../../errors.js';
import type { Services } from '../../registry.js';
import { toUserResponse, type UserResponse } from './users-service.js';

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

export class MeService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): MeService {
    return new MeService(s.users, s.auth);
  }

  constructor(
    private readonly users: UserDirectory,
    private readonly auth: AuthService,
  ) {}

  async describe(user: AuthUser): Promise<MeResponse> {
    const row = await this.users.row(user.id);
    if (!row) throw new UnauthorizedError('Account removed');
    // Area levels are the effective ones (role included), as every check uses them.
    return {
      user: { ...toUserResponse(row), ...user.perms },
      token_type: 'access',
      issued_at: user.issuedAt,
      expires_at: user.expiresAt,
    };
  }

  /** Checks the current password, sets the new one and revokes every token of the account. */
  async changePassword(user: AuthUser, body: ChangePasswordRequest): Promise<MessageResponse> {
    await this.auth.changePassword(user, body.current_password, body.new_password);
    return { message: 'Password changed' };
  }
}
