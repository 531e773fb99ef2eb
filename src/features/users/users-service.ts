// ZoneMinder accounts (the Users table; columns and conversions in user-fields.ts). Passwords are
// stored as bcrypt hashes and never returned. A password change, or disabling the account or its
// API access, revokes every token the account holds (the TokenMinExpiry floor), effective at once
// on every device.
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.js';
import type { PrismaClient } from '../../db/prisma.js';
import type { AuthService } from '../../auth/auth-service.js';
import { hashPassword } from '../../auth/passwords.js';
import { FEATURES, parseLevel, type Feature } from '../../auth/permissions.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, Users } from '../../generated/prisma/client.js';
import type {
  CreateUserRequest,
  UpdateUserRequest,
  UserFields,
  UserLevel,
  UserResponse,
} from '../../generated/dto/users.js';
import { jsonToColumns, rowToJson } from '../field-table.js';
import { USER_FIELDS } from './user-fields.js';
import type { Services } from '../../registry.js';

// UserResponse, CreateUserRequest, UpdateUserRequest and UserLevel are generated from user-fields.ts.
export type { CreateUserRequest, UpdateUserRequest, UserLevel, UserResponse };

const MAX_PASSWORD_BYTES = 72;

/** The levels each column's enum holds (ZoneMinder 1.37+: Monitors gains Create). */
function allowedLevels(feature: Feature): UserLevel[] {
  if (feature === 'stream') return ['None', 'View'];
  if (feature === 'monitors') return ['None', 'View', 'Edit', 'Create'];
  return ['None', 'View', 'Edit'];
}

/** 400 naming the field for a permission level its column lacks. */
function checkLevels(body: UserFields): void {
  for (const feature of FEATURES) {
    const level = body[feature];
    if (level == null) continue;
    const allowed = allowedLevels(feature);
    if (!allowed.includes(level))
      throw new InvalidInputError('Invalid input', [[feature, `must be one of ${allowed.join(', ')}`]]);
  }
}

/**
 * The columns a body sets but the password, which is only ever stored as its hash: null clears
 * Language and MaxBandwidth and leaves the other columns alone.
 */
function toData(body: CreateUserRequest | UpdateUserRequest): Prisma.UsersUpdateInput {
  const { password: _password, ...fields } = body;
  return jsonToColumns(USER_FIELDS, fields);
}

async function passwordHash(password: string): Promise<string> {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new InvalidInputError('Invalid input', [['password', `must be at most ${MAX_PASSWORD_BYTES} bytes`]]);
  }
  return hashPassword(password);
}

/**
 * A Users row of any ZoneMinder version (a Prisma row or a raw one) as UserResponse: the password
 * hash is write-only and never copied; unknown permission values read as None.
 */
export function toUserResponse(row: object): UserResponse {
  return rowToJson(USER_FIELDS, row, { enumOut: (_f, stored) => parseLevel(stored) }) as unknown as UserResponse;
}

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
      toUserResponse,
    );
  }

  private async row(id: number): Promise<Users> {
    const row = await this.prisma.users.findUnique({ where: { Id: id } });
    if (!row) throw new NotFoundError(`User ${id} not found`, [['id', String(id)]], 'USER');
    return row;
  }

  async get(id: number): Promise<UserResponse> {
    return toUserResponse(await this.row(id));
  }

  async create(body: CreateUserRequest): Promise<UserResponse> {
    checkLevels(body);
    await this.assertUsernameFree(body.username);
    const row = await this.prisma.users.create({
      data: { ...(toData(body) as Prisma.UsersCreateInput), Password: await passwordHash(body.password) },
    });
    return toUserResponse(row);
  }

  async update(id: number, body: UpdateUserRequest): Promise<UserResponse> {
    await this.row(id);
    checkLevels(body);
    if (body.username != null) await this.assertUsernameFree(body.username, id);
    const password = body.password != null ? await passwordHash(body.password) : undefined;
    const row = await this.prisma.users.update({ where: { Id: id }, data: { ...toData(body), Password: password } });
    if (password !== undefined || body.enabled === 0 || body.api_enabled === 0) await this.auth.revokeAll(id);
    return toUserResponse(row);
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
