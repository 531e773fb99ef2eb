// GET /me: the caller's account as UserResponse plus the token's times.
import type { AuthUser } from '../../auth/auth-service.js';
import type { UserDirectory } from '../../auth/user-directory.js';
import { UnauthorizedError } from '../../errors.js';
import type { Services } from '../../registry.js';
import { toUserResponse, type UserResponse } from './users-service.js';

export class MeService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): MeService {
    return new MeService(s.users);
  }

  constructor(private readonly users: UserDirectory) {}

  async describe(
    user: AuthUser,
  ): Promise<{ user: UserResponse; token_type: string; issued_at: number; expires_at: number }> {
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
}
