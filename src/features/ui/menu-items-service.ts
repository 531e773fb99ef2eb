// The web UI's navigation menu (Menu_Items, ZoneMinder 1.39.3): which entries show, their labels,
// icons and order. Site-wide UI configuration, so System-gated. Listed in menu order.
import { notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Menu_Items, Prisma } from '../../generated/prisma/client.js';
import { toBit, type ZeroOrOne, type ZeroOrOneFlag } from '../../db/row-flags.js';
import { DbService } from '../db-service.js';

export type MenuIconType = 'material' | 'fontawesome' | 'image' | 'none';

export interface MenuItemResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /** The entry's stable key, e.g. `Console`. */
  menu_key: string;
  enabled: ZeroOrOne;
  /** Shown instead of the built-in label when set. */
  label?: string | null;
  /** @isInt */
  sort_order: number;
  icon?: string | null;
  icon_type: MenuIconType;
  link?: string | null;
}

interface MenuItemFields {
  enabled?: null | ZeroOrOneFlag;
  /**
   * Display label; null: the built-in one.
   * @maxLength 64
   */
  label?: string | null;
  /**
   * Position in the menu (ascending).
   * @isInt
   * @minimum -32768
   * @maximum 32767
   */
  sort_order?: number | null;
  /**
   * Icon name or image path.
   * @maxLength 128
   */
  icon?: string | null;
  icon_type?: MenuIconType | null;
  /**
   * Target URL or route.
   * @maxLength 255
   */
  link?: string | null;
}

export interface CreateMenuItemRequest extends MenuItemFields {
  /**
   * Unique key of the entry.
   * @minLength 1
   * @maxLength 32
   */
  menu_key: string;
}

export interface UpdateMenuItemRequest extends MenuItemFields {
  /**
   * Unique key of the entry.
   * @minLength 1
   * @maxLength 32
   */
  menu_key?: string | null;
}

function toResponse(row: Menu_Items): MenuItemResponse {
  return {
    id: row.Id,
    menu_key: row.MenuKey,
    enabled: row.Enabled ? 1 : 0,
    label: row.Label,
    sort_order: row.SortOrder,
    icon: row.Icon,
    icon_type: row.IconType,
    link: row.Link,
  };
}

function toData(body: CreateMenuItemRequest | UpdateMenuItemRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (body.menu_key != null) data.MenuKey = body.menu_key;
  const enabled = toBit(body.enabled);
  if (enabled !== undefined) data.Enabled = enabled === 1;
  if (body.label !== undefined) data.Label = body.label;
  if (body.sort_order != null) data.SortOrder = body.sort_order;
  if (body.icon !== undefined) data.Icon = body.icon;
  if (body.icon_type != null) data.IconType = body.icon_type;
  if (body.link !== undefined) data.Link = body.link;
  return data;
}

export class MenuItemsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<MenuItemResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.menu_Items.findMany({
        orderBy: [{ SortOrder: 'asc' }, { Id: 'asc' }],
        skip: req.skip,
        take: req.take,
      }),
      this.prisma.menu_Items.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<MenuItemResponse> {
    const row = await this.prisma.menu_Items.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Menu item', id);
    return toResponse(row);
  }

  /** A duplicate menu_key is a unique-index 409, mapped centrally. */
  async create(body: CreateMenuItemRequest): Promise<MenuItemResponse> {
    return toResponse(await this.prisma.menu_Items.create({ data: toData(body) as Prisma.Menu_ItemsCreateInput }));
  }

  async update(id: number, body: UpdateMenuItemRequest): Promise<MenuItemResponse> {
    await this.get(id);
    return toResponse(
      await this.prisma.menu_Items.update({ where: { Id: id }, data: toData(body) as Prisma.Menu_ItemsUpdateInput }),
    );
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.menu_Items.delete({ where: { Id: id } });
  }
}
