// Per-user UI preferences (the User_Preferences table), gated on System like the reference.
//
// Visibility: a caller with System View sees only their own rows (other users' rows answer 404,
// like missing ones); System Edit, which may already edit every user, sees and manages all rows.
// Clients read the list as "my preferences" (docs/contract/clients.md), so a non-admin never gets
// someone else's settings mixed in; an admin's view is the reference's. Writes need System Edit
// (the feature gate), so every writer may set any existing user_id (400 for an unknown user).
//
// Name is NOT NULL in ZoneMinder's table (1.38+, unique per user): the reference schema marks it
// optional, so the request keeps that shape but a create without a name is a 400 naming it, and
// a duplicate (user_id, name) is a 409.
import type { AuthUser } from '../../auth/auth-service.js';
import { allows } from '../../auth/permissions.js';
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, User_Preferences } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface UserPreferenceResponse {
  /** User_Preferences.Id. @isInt @minimum 0 */
  id: number;
  /** The user the preference belongs to. @isInt @minimum 0 */
  user_id: number;
  /** Preference name, unique per user. */
  name?: string | null;
  /** Preference value (text). */
  value?: string | null;
}

export interface CreateUserPreferenceRequest {
  /** The user the preference belongs to (an existing user). @isInt @minimum 0 @maximum 2147483647 */
  user_id: number;
  /** Preference name, unique per user; required by the table. @minLength 1 @maxLength 64 */
  name?: string | null;
  /** Preference value. @maxLength 65535 */
  value?: string | null;
}

export interface UpdateUserPreferenceRequest {
  /** Moves the preference to another existing user; null leaves it unchanged. @isInt @minimum 0 @maximum 2147483647 */
  user_id?: number | null;
  /** Preference name; null leaves it unchanged. @minLength 1 @maxLength 64 */
  name?: string | null;
  /** Preference value; null clears it. @maxLength 65535 */
  value?: string | null;
}

const toResponse = (row: User_Preferences): UserPreferenceResponse => ({
  id: row.Id,
  user_id: row.UserId,
  name: row.Name,
  value: row.Value,
});

/** Only System Edit sees other users' rows. */
const seesAll = (user: AuthUser) => allows(user.perms, 'system', 'Edit');

export class UserPreferencesService extends DbService {
  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<UserPreferenceResponse>> {
    const req = pageRequest(page, pageSize);
    const where: Prisma.User_PreferencesWhereInput = seesAll(user) ? {} : { UserId: user.id };
    return listPage(
      req,
      this.prisma.user_Preferences.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.user_Preferences.count({ where }),
      toResponse,
    );
  }

  async get(user: AuthUser, id: number): Promise<UserPreferenceResponse> {
    const row = await this.prisma.user_Preferences.findUnique({ where: { Id: id } });
    if (!row || (row.UserId !== user.id && !seesAll(user))) throw notFound('User preference', id, 'MESSAGE');
    return toResponse(row);
  }

  private async checkUser(id: number | null | undefined): Promise<void> {
    if (id == null) return;
    if (!(await this.prisma.users.findUnique({ where: { Id: id }, select: { Id: true } }))) {
      throw new InvalidInputError(`User ${id} does not exist`, [['user_id', `no user with id ${id}`]]);
    }
  }

  // Writers hold System Edit (the gate), so the caller may create for any user.
  async create(_caller: AuthUser, body: CreateUserPreferenceRequest): Promise<UserPreferenceResponse> {
    if (body.name == null) throw new InvalidInputError('Invalid input', [['name', 'is required']]);
    await this.checkUser(body.user_id);
    const row = await this.prisma.user_Preferences.create({
      data: { UserId: body.user_id, Name: body.name, Value: body.value ?? null },
    });
    return toResponse(row);
  }

  async update(user: AuthUser, id: number, body: UpdateUserPreferenceRequest): Promise<UserPreferenceResponse> {
    await this.get(user, id);
    await this.checkUser(body.user_id);
    const row = await this.prisma.user_Preferences.update({
      where: { Id: id },
      data: { UserId: body.user_id ?? undefined, Name: body.name ?? undefined, Value: body.value },
    });
    return toResponse(row);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.get(user, id);
    await this.prisma.user_Preferences.delete({ where: { Id: id } });
  }
}
