// ZoneMinder's PHP sessions (the Sessions table: id, access time, serialized data), as the
// reference exposes them. A session id is the ZMSESSID cookie of a logged-in web user, i.e. a
// credential, and data holds that user's session state: so every operation of this family,
// reads included, needs System Edit (see SessionsController). Ids are PHP session ids: 1 to 32
// of [A-Za-z0-9,-] (char(32)); an id of another shape cannot exist and is refused with 400.
import { NotFoundError } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { Sessions } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface SessionResponse {
  /** PHP session id. */
  id: string;
  /** Last access, Unix seconds (an unsigned 32-bit column). @isLong @minimum 0 */
  access?: number | null;
  /** PHP-serialized session data. */
  data?: string | null;
}

export interface CreateSessionRequest {
  /** PHP session id: 1-32 characters of A-Z, a-z, 0-9, comma and hyphen. @pattern ^[A-Za-z0-9,-]{1,32}$ */
  id: string;
  /** Last access, Unix seconds. @isLong @minimum 0 @maximum 4294967295 */
  access?: number | null;
  /** PHP-serialized session data. @maxLength 65535 */
  data?: string | null;
}

export interface UpdateSessionRequest {
  /** Last access, Unix seconds; null clears it. @isLong @minimum 0 @maximum 4294967295 */
  access?: number | null;
  /** PHP-serialized session data; null clears it. @maxLength 65535 */
  data?: string | null;
}

const toResponse = (row: Sessions): SessionResponse => ({ id: row.id, access: row.access, data: row.data });

export class SessionsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<SessionResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.sessions.findMany({ orderBy: { id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.sessions.count(),
      toResponse,
    );
  }

  async get(id: string): Promise<SessionResponse> {
    const row = await this.prisma.sessions.findUnique({ where: { id } });
    if (!row) throw new NotFoundError(`Session ${id} not found`, [['id', id]], 'MESSAGE');
    return toResponse(row);
  }

  async create(body: CreateSessionRequest): Promise<SessionResponse> {
    const row = await this.prisma.sessions.create({
      data: { id: body.id, access: body.access ?? null, data: body.data ?? null },
    });
    return toResponse(row);
  }

  async update(id: string, body: UpdateSessionRequest): Promise<SessionResponse> {
    await this.get(id);
    return toResponse(
      await this.prisma.sessions.update({ where: { id }, data: { access: body.access, data: body.data } }),
    );
  }

  async remove(id: string): Promise<void> {
    await this.get(id);
    await this.prisma.sessions.delete({ where: { id } });
  }
}
