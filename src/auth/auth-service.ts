// Login, refresh, logout, password change, and the per-request check of an access token.
import type { Logger } from '../log.js';
import { InvalidInputError, UnauthorizedError } from '../errors.js';
import { equaliseTiming, hashPassword, verifyPassword } from './passwords.js';
import type { Permissions } from './permissions.js';
import type { IssuedTokens, TokenService } from './tokens.js';
import type { TokenKeys } from './keys.js';
import type { UserDirectory, UserRecord } from './user-directory.js';

/** The authenticated caller, as routes see it (req.user). */
export interface AuthUser {
  id: number;
  username: string;
  perms: Permissions;
  issuedAt: number;
  expiresAt: number;
}

/** How long a user's row (permissions, revocation floor) is trusted before it is re-read. */
const USER_CACHE_MS = 5000;
const LOGIN_FAILED = 'Invalid username or password';
/** bcrypt reads at most 72 bytes; longer passwords would silently be truncated. */
const MAX_PASSWORD_BYTES = 72;

export class AuthService {
  /** A user's row and when the read that produced it started. */
  private readonly cache = new Map<number, { user: UserRecord; from: number }>();
  /** The read of a user's row in flight, shared by every request that needs it. */
  /** Reads of a user row under way, with when each started (this.now()). */
  private readonly loads = new Map<number, { read: Promise<UserRecord | null>; from: number }>();
  /** Per user, bumped by revokeAll: a read started before it may hold the old floor and is not kept. */
  private readonly revocations = new Map<number, number>();

  constructor(
    private readonly users: UserDirectory,
    private readonly tokens: TokenService,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private usable(user: UserRecord | null): user is UserRecord {
    return user !== null && user.enabled && user.apiEnabled;
  }

  private remember(user: UserRecord, from = this.now()): UserRecord {
    const kept = this.cache.get(user.id);
    if (!kept || kept.from <= from) this.cache.set(user.id, { user, from });
    return user;
  }

  /**
   * The user's row, read at most USER_CACHE_MS before (measured from the start of the read).
   * Past half that age it is re-read in the background, so a client polling with one token does
   * not wait for the database every few seconds; concurrent requests share one read. `fresh`
   * reads anew, not joining a read that started earlier.
   */
  /** `readSince`: only a row read (or a read started) at or after this time will do. */
  private current(id: number, fresh = false, readSince = -Infinity): Promise<UserRecord | null> {
    const hit = fresh ? undefined : this.cache.get(id);
    const age = hit ? this.now() - hit.from : Infinity;
    if (hit && age < USER_CACHE_MS && hit.from >= readSince) {
      // A failed background read keeps the row until it expires; the next request tries again.
      if (age >= USER_CACHE_MS / 2) this.load(id, false).catch(() => {});
      return Promise.resolve(hit.user);
    }
    return this.load(id, fresh, readSince);
  }

  private load(id: number, fresh: boolean, readSince = -Infinity): Promise<UserRecord | null> {
    const running = this.loads.get(id);
    if (running && !fresh && running.from >= readSince) return running.read;
    const from = this.now();
    const revocation = this.revocations.get(id) ?? 0;
    const read = this.users.findById(id).then(
      (user) => {
        if (this.loads.get(id)?.read === read) this.loads.delete(id);
        if ((this.revocations.get(id) ?? 0) === revocation) {
          if (user) this.remember(user, from);
          else this.cache.delete(id);
        }
        return user;
      },
      (err: unknown) => {
        if (this.loads.get(id)?.read === read) this.loads.delete(id);
        throw err;
      },
    );
    this.loads.set(id, { read, from });
    return read;
  }

  /** This host's token keys (a multi-server host publishes their public halves). */
  get tokenKeys(): TokenKeys {
    return this.tokens.ownKeys;
  }

  private issue(user: UserRecord): IssuedTokens {
    return this.tokens.issue({ id: user.id, username: user.username, perms: user.perms }, user.tokenMinExpiry);
  }

  /** Unknown user, disabled user and wrong password fail alike, in about the same time. */
  async login(username: string, password: string): Promise<IssuedTokens> {
    const user = await this.users.findByUsername(username);
    if (!user) {
      await equaliseTiming(password);
      throw new UnauthorizedError(LOGIN_FAILED);
    }
    const { ok, scheme } = await verifyPassword(password, user.password);
    if (!ok || !this.usable(user)) throw new UnauthorizedError(LOGIN_FAILED);
    if (scheme !== 'bcrypt') {
      // As ZoneMinder's web UI does after a successful login: replace a legacy hash by bcrypt.
      await this.users.setPassword(user.id, await hashPassword(password));
      this.log.warn({ user_id: user.id, scheme }, 'legacy password hash upgraded to bcrypt');
    }
    this.log.info({ user_id: user.id }, 'login');
    return this.issue(this.remember(user));
  }

  /** A new pair for a valid refresh token; permissions are re-read from the database. */
  async refresh(refreshToken: string): Promise<IssuedTokens> {
    const claims = await this.tokens.verify(refreshToken, 'refresh');
    const user = await this.current(claims.uid, true);
    if (!this.usable(user) || claims.iat < user.tokenMinExpiry) throw new UnauthorizedError('Refresh token revoked');
    return this.issue(user);
  }

  /** This service's clock (ms): a `readSince` for authenticate. */
  clock(): number {
    return this.now();
  }

  /**
   * Checks an access token against the user's current state (enabled, revocation floor). With
   * `readSince` (from clock()), the user's row is one read at or after then: a long-lived
   * connection's periodic recheck sees a change made by anyone, ZoneMinder's UI included, at its
   * next run; the reads of one run are shared.
   */
  async authenticate(accessToken: string, readSince?: number): Promise<AuthUser> {
    const claims = await this.tokens.verify(accessToken, 'access');
    const user = await this.current(claims.uid, false, readSince);
    if (!this.usable(user)) throw new UnauthorizedError('Account disabled or removed');
    if (claims.iat < user.tokenMinExpiry) throw new UnauthorizedError('Token revoked');
    return { id: user.id, username: user.username, perms: user.perms, issuedAt: claims.iat, expiresAt: claims.exp };
  }

  /** Revokes every token of the user, on every device, access and refresh alike. */
  async revokeAll(userId: number): Promise<void> {
    // +1: a token issued within this very second is revoked too; new ones are dated at the floor.
    const floor = this.seconds() + 1;
    await this.users.raiseTokenFloor(userId, floor);
    // A read in flight may have run before the update: later requests must not join or keep it.
    this.revocations.set(userId, (this.revocations.get(userId) ?? 0) + 1);
    this.loads.delete(userId);
    const hit = this.cache.get(userId);
    if (hit) hit.user = { ...hit.user, tokenMinExpiry: Math.max(hit.user.tokenMinExpiry, floor) };
    this.log.info({ user_id: userId }, 'tokens revoked');
  }

  async changePassword(user: AuthUser, current: string, next: string): Promise<void> {
    if (next.length === 0) throw new InvalidInputError('Invalid input', [['new_password', 'must not be empty']]);
    if (Buffer.byteLength(next, 'utf8') > MAX_PASSWORD_BYTES) {
      throw new InvalidInputError('Invalid input', [['new_password', `must be at most ${MAX_PASSWORD_BYTES} bytes`]]);
    }
    const record = await this.users.findById(user.id);
    const { ok } = await verifyPassword(current, record?.password ?? null);
    if (!ok || !record) throw new UnauthorizedError('Current password is wrong');
    await this.users.setPassword(user.id, await hashPassword(next));
    await this.revokeAll(user.id);
  }
}
