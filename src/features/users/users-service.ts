// ZoneMinder accounts (the Users table). Passwords are stored as bcrypt hashes and never
// returned. A password change, or disabling the account or its API access, revokes every token
// the account holds (the TokenMinExpiry floor), effective at once on every device.
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { AuthService } from '../../auth/auth-service.js';
import { hashPassword } from '../../auth/passwords.js';
import { FEATURE_COLUMNS, FEATURES, type Feature } from '../../auth/permissions.js';
import { userResponseFromRow, type UserResponse } from '../../auth/user-response.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Users } from '../../generated/prisma/client.js';
import type { Services } from '../../registry.js';

/** A permission level as clients send it. Stream stops at View; only Monitors has Create. */
export type UserLevel = 'None' | 'View' | 'Edit' | 'Create';

/** Fields shared by create and update; absent keeps (or defaults), null clears a nullable column. */
export interface UserFields {
  /**
   * Display name.
   * @maxLength 64
   */
  name?: string | null;
  /**
   * E-mail address.
   * @maxLength 64
   */
  email?: string | null;
  /**
   * Phone number.
   * @maxLength 64
   */
  phone?: string | null;
  /**
   * UI language code, e.g. en_gb; null clears it.
   * @maxLength 8
   */
  language?: string | null;
  /**
   * 1 = may log in.
   * @isInt
   * @minimum 0
   * @maximum 1
   */
  enabled?: number | null;
  /**
   * 1 = may use the API.
   * @isInt
   * @minimum 0
   * @maximum 1
   */
  api_enabled?: number | null;
  /**
   * Start page of the web UI.
   * @maxLength 64
   */
  home_view?: string | null;
  /**
   * Bandwidth class (low, medium, high); null clears it.
   * @maxLength 16
   */
  max_bandwidth?: string | null;
  /** None or View. */
  stream?: UserLevel | null;
  events?: UserLevel | null;
  control?: UserLevel | null;
  /** None, View, Edit or Create. */
  monitors?: UserLevel | null;
  groups?: UserLevel | null;
  devices?: UserLevel | null;
  snapshots?: UserLevel | null;
  system?: UserLevel | null;
}

export interface CreateUserRequest extends UserFields {
  /**
   * Unique login name (printable Latin-1, as ZoneMinder stores it).
   * @minLength 1
   * @maxLength 64
   * @pattern ^[\x20-\x7E\xA0-\xFF]+$
   */
  username: string;
  /**
   * Plain-text password, at most 72 bytes (bcrypt's limit); stored as a bcrypt hash.
   * @minLength 1
   * @maxLength 72
   */
  password: string;
}

export interface UpdateUserRequest extends UserFields {
  /**
   * Unique login name (printable Latin-1, as ZoneMinder stores it).
   * @minLength 1
   * @maxLength 64
   * @pattern ^[\x20-\x7E\xA0-\xFF]+$
   */
  username?: string | null;
  /**
   * New plain-text password, at most 72 bytes; revokes the account's tokens.
   * @minLength 1
   * @maxLength 72
   */
  password?: string | null;
}

const MAX_PASSWORD_BYTES = 72;

/** The levels each column's enum holds (ZoneMinder 1.37+: Monitors gains Create). */
function allowedLevels(feature: Feature): UserLevel[] {
  if (feature === 'stream') return ['None', 'View'];
  if (feature === 'monitors') return ['None', 'View', 'Edit', 'Create'];
  return ['None', 'View', 'Edit'];
}

/** Column values for the permission fields present; 400 naming the field for a level its column lacks. */
function permissionData(body: UserFields): Record<string, UserLevel> {
  const data: Record<string, UserLevel> = {};
  for (const feature of FEATURES) {
    const level = body[feature];
    if (level == null) continue;
    const allowed = allowedLevels(feature);
    if (!allowed.includes(level))
      throw new InvalidInputError('Invalid input', [[feature, `must be one of ${allowed.join(', ')}`]]);
    data[FEATURE_COLUMNS[feature]] = level;
  }
  return data;
}

function profileData(body: UserFields): Prisma.UsersUpdateInput {
  return {
    Name: body.name ?? undefined,
    Email: body.email ?? undefined,
    Phone: body.phone ?? undefined,
    Language: body.language,
    Enabled: body.enabled ?? undefined,
    APIEnabled: body.api_enabled ?? undefined,
    HomeView: body.home_view ?? undefined,
    MaxBandwidth: body.max_bandwidth,
  };
}

async function passwordHash(password: string): Promise<string> {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new InvalidInputError('Invalid input', [['password', `must be at most ${MAX_PASSWORD_BYTES} bytes`]]);
  }
  return hashPassword(password);
}

const toResponse = (row: Users): UserResponse => userResponseFromRow(row as unknown as Record<string, unknown>);

export class UsersService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): UsersService {
    return new UsersService(s.prisma, s.auth);
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly auth: AuthService,
  ) {}

  /**
   * 409 when another account has this name. With ZM_CASE_INSENSITIVE_USERNAMES set, names that
   * differ only in case collide too: login would find two rows and refuse both.
   */
  private async assertUsernameFree(username: string, exceptId = -1): Promise<void> {
    const setting = await this.prisma.config.findUnique({
      where: { Name: 'ZM_CASE_INSENSITIVE_USERNAMES' },
      select: { Value: true },
    });
    const taken =
      setting?.Value === '1'
        ? await this.prisma.$queryRaw<Array<{ Id: number }>>`
            SELECT Id FROM Users WHERE LOWER(CONVERT(Username USING utf8mb4)) = LOWER(${username}) AND Id <> ${exceptId} LIMIT 1`
        : await this.prisma.users.findMany({
            where: { Username: username, Id: { not: exceptId } },
            select: { Id: true },
            take: 1,
          });
    if (taken.length > 0) throw new ConflictError(`User name ${username} is taken`, [['username', username]]);
  }

  async list(page?: number, pageSize?: number): Promise<Page<UserResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.users.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.users.count(),
      toResponse,
    );
  }

  private async row(id: number): Promise<Users> {
    const row = await this.prisma.users.findUnique({ where: { Id: id } });
    if (!row) throw new NotFoundError(`User ${id} not found`, [['id', String(id)]], 'USER');
    return row;
  }

  async get(id: number): Promise<UserResponse> {
    return toResponse(await this.row(id));
  }

  async create(body: CreateUserRequest): Promise<UserResponse> {
    const permissions = permissionData(body);
    await this.assertUsernameFree(body.username);
    const row = await this.prisma.users.create({
      data: {
        ...(profileData(body) as Prisma.UsersCreateInput),
        ...permissions,
        Username: body.username,
        Password: await passwordHash(body.password),
      },
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateUserRequest): Promise<UserResponse> {
    await this.row(id);
    const permissions = permissionData(body);
    if (body.username != null) await this.assertUsernameFree(body.username, id);
    const password = body.password != null ? await passwordHash(body.password) : undefined;
    const row = await this.prisma.users.update({
      where: { Id: id },
      data: { ...profileData(body), ...permissions, Username: body.username ?? undefined, Password: password },
    });
    if (password !== undefined || body.enabled === 0 || body.api_enabled === 0) await this.auth.revokeAll(id);
    return toResponse(row);
  }

  /** Also removes the account's preferences (their foreign key restricts the delete). */
  async remove(id: number): Promise<void> {
    await this.row(id);
    await this.prisma.$transaction([
      this.prisma.user_Preferences.deleteMany({ where: { UserId: id } }),
      this.prisma.users.delete({ where: { Id: id } }),
    ]);
    // Drops any cached session of the account at once rather than after the cache period.
    await this.auth.revokeAll(id);
  }
}
