// Groups (nested through ParentId), filtered by the group row-level ACL. Nesting rules: a group
// cannot be its own parent nor be moved under one of its descendants (400), and the parent must
// exist. Deleting a group deletes its subgroups (the schema's ParentId ON DELETE CASCADE) and
// their memberships; monitors are untouched.
import type { AuthUser } from '../../auth/auth-service.js';
import { canEdit, canSee, type GroupScope } from '../../auth/monitor-acl.js';
import { InvalidInputError, NotFoundError, PermissionDeniedError } from '../../errors.js';
import type { Groups, Prisma } from '../../generated/prisma/client.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import { AclDbService } from '../db-service.js';

export interface GroupResponse {
  /** @isInt @minimum 0 */
  id: number;
  name: string;
  /** null for a top-level group. @isInt @minimum 0 */
  parent_id: number | null;
}

export interface CreateGroupRequest {
  /** Group name. @minLength 1 @maxLength 64 */
  name: string;
  /** Parent group; omitted or null = top level. @isInt @minimum 0 */
  parent_id?: number | null;
}

export interface UpdateGroupRequest {
  /** Group name. @minLength 1 @maxLength 64 */
  name?: string | null;
  /** Omitted = keep the parent; null = make top level. @isInt @minimum 0 */
  parent_id?: number | null;
}

const toResponse = (row: Groups): GroupResponse => ({ id: row.Id, name: row.Name, parent_id: row.ParentId });

export const groupNotFound = (id: number) => new NotFoundError(`Group ${id} not found`, [['id', String(id)]], 'USER');

export function requireEditableGroup(scope: GroupScope, id: number): void {
  if (!canSee(scope, id)) throw groupNotFound(id);
  if (!canEdit(scope, id))
    throw new PermissionDeniedError(`Group ${id} is view-only for this account`, [['group_id', String(id)]]);
}

export class GroupsService extends AclDbService {
  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<GroupResponse>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.groupScope(user);
    const where: Prisma.GroupsWhereInput = scope.visible ? { Id: { in: [...scope.visible] } } : {};
    return listPage(
      req,
      this.prisma.groups.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.groups.count({ where }),
      toResponse,
    );
  }

  private async row(user: AuthUser, id: number, edit: boolean): Promise<Groups> {
    const scope = await this.acl.groupScope(user);
    if (edit) requireEditableGroup(scope, id);
    else if (!canSee(scope, id)) throw groupNotFound(id);
    const row = await this.prisma.groups.findUnique({ where: { Id: id } });
    if (!row) throw groupNotFound(id);
    return row;
  }

  async get(user: AuthUser, id: number): Promise<GroupResponse> {
    return toResponse(await this.row(user, id, false));
  }

  /** A parent must exist and be visible (else 400, as for any unknown reference) and editable. */
  private async checkParent(user: AuthUser, parentId: number): Promise<void> {
    const scope = await this.acl.groupScope(user);
    const exists =
      canSee(scope, parentId) &&
      (await this.prisma.groups.findUnique({ where: { Id: parentId }, select: { Id: true } }));
    if (!exists) throw new InvalidInputError('Invalid input', [['parent_id', `unknown group ${parentId}`]]);
    if (!canEdit(scope, parentId))
      throw new PermissionDeniedError(`Group ${parentId} is view-only for this account`, [
        ['parent_id', String(parentId)],
      ]);
  }

  /** True when `candidate` is `id` or lies below it (walks up from the candidate; cycle-safe). */
  private async isSelfOrDescendant(id: number, candidate: number): Promise<boolean> {
    const parents = new Map(
      (await this.prisma.groups.findMany({ select: { Id: true, ParentId: true } })).map((g) => [g.Id, g.ParentId]),
    );
    const seen = new Set<number>();
    for (let g: number | null | undefined = candidate; g != null && !seen.has(g); g = parents.get(g)) {
      if (g === id) return true;
      seen.add(g);
    }
    return false;
  }

  async create(user: AuthUser, body: CreateGroupRequest): Promise<GroupResponse> {
    if (body.parent_id != null) await this.checkParent(user, body.parent_id);
    const row = await this.prisma.groups.create({ data: { Name: body.name, ParentId: body.parent_id ?? null } });
    this.acl.invalidate();
    return toResponse(row);
  }

  async update(user: AuthUser, id: number, body: UpdateGroupRequest): Promise<GroupResponse> {
    await this.row(user, id, true);
    if (body.parent_id != null) {
      if (body.parent_id === id)
        throw new InvalidInputError('Invalid input', [['parent_id', 'a group cannot be its own parent']]);
      await this.checkParent(user, body.parent_id);
      if (await this.isSelfOrDescendant(id, body.parent_id)) {
        throw new InvalidInputError('Invalid input', [
          ['parent_id', `group ${body.parent_id} is below group ${id}: that would make a cycle`],
        ]);
      }
    }
    const row = await this.prisma.groups.update({
      where: { Id: id },
      data: {
        ...(body.name != null && { Name: body.name }),
        ...(body.parent_id !== undefined && { ParentId: body.parent_id }),
      },
    });
    this.acl.invalidate();
    return toResponse(row);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    await this.row(user, id, true);
    await this.prisma.groups.delete({ where: { Id: id } });
    this.acl.invalidate();
  }
}
