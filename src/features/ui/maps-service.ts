// Maps (ZoneMinder's Maps table, present in 1.39.22): named map images with a polygon of
// coordinates and an optional parent map, for placing cameras. Site-wide configuration, so
// System-gated. NumCoords is derived from Coords (as Zones are); a map cannot be its own parent
// nor be moved under one of its descendants.
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Maps } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface MapResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  /** The map image's file name. */
  filename: string;
  /**
   * Points in coords (derived).
   * @isInt
   * @minimum 0
   */
  num_coords: number;
  /** `x,y x,y …` */
  coords: string;
  /**
   * The enclosing map; null at the top.
   * @isInt
   * @minimum 0
   */
  parent_id?: number | null;
}

/**
 * Space-separated `x,y` pairs (integers or decimals, may be negative); empty for none.
 * @pattern ^(-?\d+(\.\d+)?,-?\d+(\.\d+)?(\x20-?\d+(\.\d+)?,-?\d+(\.\d+)?)*)?$
 * @maxLength 255
 */
export type MapCoords = string;

export interface CreateMapRequest {
  /**
   * Map name.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  /**
   * The map image's file name.
   * @maxLength 64
   */
  filename?: string | null;
  coords?: MapCoords | null;
  /**
   * The enclosing map.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  parent_id?: number | null;
}

export interface UpdateMapRequest {
  /**
   * Map name.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
  /**
   * The map image's file name.
   * @maxLength 64
   */
  filename?: string | null;
  coords?: MapCoords | null;
  /**
   * Omitted: keep the parent; null: top level.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  parent_id?: number | null;
}

const toResponse = (row: Maps): MapResponse => ({
  id: row.Id,
  name: row.Name,
  filename: row.Filename,
  num_coords: row.NumCoords,
  coords: row.Coords,
  parent_id: row.ParentId,
});

const countPoints = (coords: string) => (coords.trim() === '' ? 0 : coords.trim().split(/\s+/).length);

export class MapsService extends DbService {
  async list(parentId: number | undefined, page?: number, pageSize?: number): Promise<Page<MapResponse>> {
    const req = pageRequest(page, pageSize);
    const where = parentId === undefined ? {} : { ParentId: parentId };
    return listPage(
      req,
      this.prisma.maps.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.maps.count({ where }),
      toResponse,
    );
  }

  private async row(id: number): Promise<Maps> {
    const row = await this.prisma.maps.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Map', id);
    return row;
  }

  async get(id: number): Promise<MapResponse> {
    return toResponse(await this.row(id));
  }

  /** The parent must exist and must not be the map itself or one of its descendants. */
  private async checkParent(id: number | null, parentId: number): Promise<void> {
    if (parentId === id)
      throw new InvalidInputError('A map cannot be its own parent', [['parent_id', 'is the map itself']]);
    const seen = new Set<number>();
    for (let at: number | null = parentId; at !== null && !seen.has(at);) {
      seen.add(at);
      const row: { ParentId: number | null } | null = await this.prisma.maps.findUnique({
        where: { Id: at },
        select: { ParentId: true },
      });
      if (!row) {
        if (at === parentId) throw new InvalidInputError('Invalid input', [['parent_id', `unknown map ${parentId}`]]);
        break;
      }
      if (row.ParentId === id && id !== null)
        throw new InvalidInputError('Invalid input', [['parent_id', 'is a descendant of the map']]);
      at = row.ParentId;
    }
  }

  async create(body: CreateMapRequest): Promise<MapResponse> {
    if (body.parent_id != null) await this.checkParent(null, body.parent_id);
    const coords = body.coords ?? '';
    const row = await this.prisma.maps.create({
      data: {
        Name: body.name,
        Filename: body.filename ?? '',
        Coords: coords,
        NumCoords: countPoints(coords),
        ParentId: body.parent_id ?? null,
      },
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateMapRequest): Promise<MapResponse> {
    await this.row(id);
    if (body.parent_id != null) await this.checkParent(id, body.parent_id);
    const data: Record<string, unknown> = {};
    if (body.name != null) data.Name = body.name;
    if (body.filename != null) data.Filename = body.filename;
    if (body.coords != null) {
      data.Coords = body.coords;
      data.NumCoords = countPoints(body.coords);
    }
    if (body.parent_id !== undefined) data.ParentId = body.parent_id;
    return toResponse(await this.prisma.maps.update({ where: { Id: id }, data }));
  }

  /** Child maps move to the top level rather than pointing at a missing parent. */
  async remove(id: number): Promise<void> {
    await this.row(id);
    await this.prisma.$transaction([
      this.prisma.maps.updateMany({ where: { ParentId: id }, data: { ParentId: null } }),
      this.prisma.maps.delete({ where: { Id: id } }),
    ]);
  }
}
