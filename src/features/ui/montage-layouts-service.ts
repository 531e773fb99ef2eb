// Montage layouts (the MontageLayouts table): named grid arrangements for the montage view.
// Positions is ZoneMinder's JSON text (the web UI JSON.parse()s it), so a value that is not JSON
// is refused with 400 rather than stored to break the UI later. UserId 0 is a layout shared by
// everyone (ZoneMinder's default); any other value must be an existing user (400 otherwise).
// Layouts are not secret: every caller with System View lists all of them.
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { MontageLayouts } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface MontageLayoutResponse {
  /** MontageLayouts.Id. @isInt @minimum 0 */
  id: number;
  /** Layout name. */
  name: string;
  /** Grid positions, ZoneMinder's JSON text. */
  positions?: string | null;
  /** Owner; 0 = shared by all users. @isInt @minimum 0 */
  user_id: number;
}

export interface CreateMontageLayoutRequest {
  /** Layout name. @minLength 1 @maxLength 65535 */
  name: string;
  /** Grid positions as JSON text. */
  positions?: string | null;
  /** Owner: an existing user, or 0 for a layout shared by all users. @isInt @minimum 0 @maximum 2147483647 */
  user_id: number;
}

export interface UpdateMontageLayoutRequest {
  /** Layout name; null leaves it unchanged. @minLength 1 @maxLength 65535 */
  name?: string | null;
  /** Grid positions as JSON text; null clears them. */
  positions?: string | null;
  /** Owner (0 = shared); null leaves it unchanged. @isInt @minimum 0 @maximum 2147483647 */
  user_id?: number | null;
}

const toResponse = (row: MontageLayouts): MontageLayoutResponse => ({
  id: row.Id,
  name: row.Name,
  positions: row.Positions,
  user_id: row.UserId,
});

function checkPositions(positions: string | null | undefined): void {
  if (positions == null) return;
  try {
    JSON.parse(positions);
  } catch {
    throw new InvalidInputError('Invalid input', [['positions', 'must be JSON text']]);
  }
}

export class MontageLayoutsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<MontageLayoutResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.montageLayouts.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.montageLayouts.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<MontageLayoutResponse> {
    const row = await this.prisma.montageLayouts.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Montage layout', id, 'MESSAGE');
    return toResponse(row);
  }

  private async checkUser(id: number | null | undefined): Promise<void> {
    if (id == null || id === 0) return;
    if (!(await this.prisma.users.findUnique({ where: { Id: id }, select: { Id: true } }))) {
      throw new InvalidInputError(`User ${id} does not exist`, [['user_id', `no user with id ${id} (0 = shared)`]]);
    }
  }

  async create(body: CreateMontageLayoutRequest): Promise<MontageLayoutResponse> {
    checkPositions(body.positions);
    await this.checkUser(body.user_id);
    const row = await this.prisma.montageLayouts.create({
      data: { Name: body.name, Positions: body.positions ?? null, UserId: body.user_id },
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateMontageLayoutRequest): Promise<MontageLayoutResponse> {
    await this.get(id);
    checkPositions(body.positions);
    await this.checkUser(body.user_id);
    const row = await this.prisma.montageLayouts.update({
      where: { Id: id },
      data: { Name: body.name ?? undefined, Positions: body.positions, UserId: body.user_id ?? undefined },
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.montageLayouts.delete({ where: { Id: id } });
  }
}
