// User roles (User_Roles, ZoneMinder ≥ 1.37.78): named sets of the eight area permissions that
// users inherit through Users.RoleId wherever their own value is None (docs/zoneminder/users.md), plus the
// role's row-level monitor and group rules (role-permissions-service.ts). System-gated.
//
// A role change affects every user holding it, so the cached row-level scopes of all users are
// dropped at once (acl.invalidate()). Feature permissions need no such step: the JWT's `perms`
// claim is only a hint for clients; each request re-reads the user, role joined, at most 5 s old
// (AuthService), so a changed role applies within 5 s, even to tokens already issued.
import { notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Prisma, User_Roles } from '../../generated/prisma/client.js';
import { AclDbService } from '../db-service.js';

/** Stream has no Edit tier. */
export type RoleStreamLevel = 'None' | 'View';
export type RoleLevel = 'None' | 'View' | 'Edit';
/** Monitors also has Create (1.37+), which counts as Edit. */
export type RoleMonitorsLevel = 'None' | 'View' | 'Edit' | 'Create';

export interface RoleResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  description?: string | null;
  stream: RoleStreamLevel;
  events: RoleLevel;
  control: RoleLevel;
  monitors: RoleMonitorsLevel;
  groups: RoleLevel;
  devices: RoleLevel;
  snapshots: RoleLevel;
  system: RoleLevel;
}

interface RoleLevels {
  stream?: RoleStreamLevel | null;
  events?: RoleLevel | null;
  control?: RoleLevel | null;
  monitors?: RoleMonitorsLevel | null;
  groups?: RoleLevel | null;
  devices?: RoleLevel | null;
  snapshots?: RoleLevel | null;
  system?: RoleLevel | null;
}

export interface CreateRoleRequest extends RoleLevels {
  /**
   * Unique role name.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  /**
   * Free text.
   * @maxLength 65535
   */
  description?: string | null;
}

export interface UpdateRoleRequest extends RoleLevels {
  /**
   * Unique role name.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
  /**
   * Free text; null clears it.
   * @maxLength 65535
   */
  description?: string | null;
}

const AREAS = ['stream', 'events', 'control', 'monitors', 'groups', 'devices', 'snapshots', 'system'] as const;
const COLUMN: Record<(typeof AREAS)[number], keyof User_Roles> = {
  stream: 'Stream',
  events: 'Events',
  control: 'Control',
  monitors: 'Monitors',
  groups: 'Groups',
  devices: 'Devices',
  snapshots: 'Snapshots',
  system: 'System',
};

function toResponse(row: User_Roles): RoleResponse {
  const out: Record<string, unknown> = { id: row.Id, name: row.Name, description: row.Description };
  for (const area of AREAS) out[area] = row[COLUMN[area]];
  return out as unknown as RoleResponse;
}

function toData(body: CreateRoleRequest | UpdateRoleRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (body.name != null) data.Name = body.name;
  if (body.description !== undefined) data.Description = body.description;
  for (const area of AREAS) if (body[area] != null) data[COLUMN[area]] = body[area];
  return data;
}

export class RolesService extends AclDbService {
  async list(page?: number, pageSize?: number): Promise<Page<RoleResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.user_Roles.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.user_Roles.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<RoleResponse> {
    const row = await this.prisma.user_Roles.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Role', id);
    return toResponse(row);
  }

  /** A duplicate name is a unique-index 409, mapped centrally. */
  async create(body: CreateRoleRequest): Promise<RoleResponse> {
    const row = await this.prisma.user_Roles.create({ data: toData(body) as Prisma.User_RolesCreateInput });
    return toResponse(row);
  }

  async update(id: number, body: UpdateRoleRequest): Promise<RoleResponse> {
    await this.get(id);
    const row = await this.prisma.user_Roles.update({
      where: { Id: id },
      data: toData(body) as Prisma.User_RolesUpdateInput,
    });
    this.acl.invalidate(); // the role's Monitors/Groups areas are fallbacks of its users' scopes
    return toResponse(row);
  }

  /** Users keep their accounts (Users.RoleId becomes NULL); the role's permission rows go with it (FKs). */
  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.user_Roles.delete({ where: { Id: id } });
    this.acl.invalidate();
  }
}
