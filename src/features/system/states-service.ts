// Run states (the States table): named snapshots of every monitor's modes that zmpkg.pl (or
// POST /system/state) applies. Names are unique (409). Definition is checked against the two
// forms ZoneMinder writes and reads, so a state saved here can always be applied:
//   Id:Capturing:Analysing:Recording,…   (web/includes/actions/state.php since 1.37)
//   Id:Function:Enabled,…                (1.36 and earlier, still honoured by zmpkg.pl)
// An empty definition (no monitors) is allowed. At most one state is active, as zmpkg.pl keeps
// it: marking one active clears the flag on the others in the same transaction.
import { InvalidInputError, notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { States } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface StateResponse {
  /** States.Id. @isInt @minimum 0 */
  id: number;
  /** Unique name. */
  name: string;
  /** Comma list of `MonitorId:Capturing:Analysing:Recording` (or legacy `MonitorId:Function:Enabled`). */
  definition: string;
  /** 1 for the state last applied. @isInt @minimum 0 */
  is_active: number;
}

export interface CreateStateRequest {
  /** Unique name. @minLength 1 @maxLength 64 */
  name: string;
  /** Comma list of `MonitorId:Capturing:Analysing:Recording` or `MonitorId:Function:Enabled`; may be empty. @maxLength 65535 */
  definition: string;
  /** 1 marks this state active (and every other inactive). @isInt @minimum 0 @maximum 1 */
  is_active: number;
}

export interface UpdateStateRequest {
  /** Unique name; null leaves it unchanged. @minLength 1 @maxLength 64 */
  name?: string | null;
  /** New definition; null leaves it unchanged. @maxLength 65535 */
  definition?: string | null;
  /** 1 marks this state active (and every other inactive); null leaves it unchanged. @isInt @minimum 0 @maximum 1 */
  is_active?: number | null;
}

const CAPTURING = new Set(['None', 'Ondemand', 'Always']);
const ANALYSING = new Set(['None', 'Always']);
const RECORDING = new Set(['None', 'OnMotion', 'Always']);
const FUNCTIONS = new Set(['None', 'Monitor', 'Modect', 'Record', 'Mocord', 'Nodect']);

/** Why an entry of a definition is unusable, or null when it is fine. */
function entryProblem(entry: string): string | null {
  const parts = entry.split(':');
  if (!/^\d+$/.test(parts[0])) return `"${entry.slice(0, 40)}": must start with a monitor id`;
  if (parts.length === 4) {
    const [, c, a, r] = parts;
    if (CAPTURING.has(c) && ANALYSING.has(a) && RECORDING.has(r)) return null;
    return `"${entry.slice(0, 40)}": expected MonitorId:Capturing:Analysing:Recording`;
  }
  if (parts.length === 3 && FUNCTIONS.has(parts[1]) && /^[01]$/.test(parts[2])) return null;
  return `"${entry.slice(0, 40)}": expected MonitorId:Capturing:Analysing:Recording or MonitorId:Function:Enabled`;
}

function checkDefinition(definition: string | null | undefined): void {
  if (definition == null || definition === '') return;
  for (const entry of definition.split(',')) {
    const problem = entryProblem(entry);
    if (problem) throw new InvalidInputError('Invalid input', [['definition', problem]]);
  }
}

const toResponse = (row: States): StateResponse => ({
  id: row.Id,
  name: row.Name,
  definition: row.Definition,
  is_active: row.IsActive,
});

export class StatesService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<StateResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.states.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.states.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<StateResponse> {
    const row = await this.prisma.states.findUnique({ where: { Id: id } });
    if (!row) throw notFound('State', id, 'MESSAGE');
    return toResponse(row);
  }

  async create(body: CreateStateRequest): Promise<StateResponse> {
    checkDefinition(body.definition);
    const row = await this.prisma.$transaction(async (tx) => {
      if (body.is_active === 1) await tx.states.updateMany({ where: { IsActive: { not: 0 } }, data: { IsActive: 0 } });
      return tx.states.create({ data: { Name: body.name, Definition: body.definition, IsActive: body.is_active } });
    });
    return toResponse(row);
  }

  async update(id: number, body: UpdateStateRequest): Promise<StateResponse> {
    await this.get(id);
    checkDefinition(body.definition);
    const row = await this.prisma.$transaction(async (tx) => {
      if (body.is_active === 1)
        await tx.states.updateMany({ where: { IsActive: { not: 0 }, Id: { not: id } }, data: { IsActive: 0 } });
      return tx.states.update({
        where: { Id: id },
        data: {
          Name: body.name ?? undefined,
          Definition: body.definition ?? undefined,
          IsActive: body.is_active ?? undefined,
        },
      });
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.states.delete({ where: { Id: id } });
  }
}
