// Encoder parameter templates (EncoderTemplates, ZoneMinder 1.39.9): named sets of encoder
// options the monitor editor copies into Monitors.EncoderParameters. They are monitor
// configuration, so gated on Monitors (not per monitor: a template belongs to no camera).
import { notFound } from '../../errors.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { EncoderTemplates, Prisma } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface EncoderTemplateResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /** The encoder the template is for, e.g. libx264 or h264_vaapi. */
  encoder: string;
  name: string;
  description?: string | null;
  /** Encoder options, one `key=value` per line as Monitors.EncoderParameters holds them. */
  params: string;
}

export interface CreateEncoderTemplateRequest {
  /**
   * Encoder name; (encoder, name) is unique.
   * @minLength 1
   * @maxLength 32
   */
  encoder: string;
  /**
   * Template name.
   * @minLength 1
   * @maxLength 64
   */
  name: string;
  /**
   * Free text.
   * @maxLength 65535
   */
  description?: string | null;
  /**
   * Encoder options.
   * @maxLength 65535
   */
  params: string;
}

export interface UpdateEncoderTemplateRequest {
  /**
   * Encoder name.
   * @minLength 1
   * @maxLength 32
   */
  encoder?: string | null;
  /**
   * Template name.
   * @minLength 1
   * @maxLength 64
   */
  name?: string | null;
  /**
   * Free text; null clears it.
   * @maxLength 65535
   */
  description?: string | null;
  /**
   * Encoder options.
   * @maxLength 65535
   */
  params?: string | null;
}

function toResponse(row: EncoderTemplates): EncoderTemplateResponse {
  return { id: row.Id, encoder: row.Encoder, name: row.Name, description: row.Description, params: row.Params };
}

function toData(body: CreateEncoderTemplateRequest | UpdateEncoderTemplateRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (body.encoder != null) data.Encoder = body.encoder;
  if (body.name != null) data.Name = body.name;
  if (body.description !== undefined) data.Description = body.description;
  if (body.params != null) data.Params = body.params;
  return data;
}

export class EncoderTemplatesService extends DbService {
  async list(encoder: string | undefined, page?: number, pageSize?: number): Promise<Page<EncoderTemplateResponse>> {
    const req = pageRequest(page, pageSize);
    const where = encoder === undefined ? {} : { Encoder: encoder };
    return listPage(
      req,
      this.prisma.encoderTemplates.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.encoderTemplates.count({ where }),
      toResponse,
    );
  }

  async get(id: number): Promise<EncoderTemplateResponse> {
    const row = await this.prisma.encoderTemplates.findUnique({ where: { Id: id } });
    if (!row) throw notFound('Encoder template', id);
    return toResponse(row);
  }

  /** A second (encoder, name) is a unique-index 409, mapped centrally. */
  async create(body: CreateEncoderTemplateRequest): Promise<EncoderTemplateResponse> {
    return toResponse(
      await this.prisma.encoderTemplates.create({ data: toData(body) as Prisma.EncoderTemplatesCreateInput }),
    );
  }

  async update(id: number, body: UpdateEncoderTemplateRequest): Promise<EncoderTemplateResponse> {
    await this.get(id);
    return toResponse(await this.prisma.encoderTemplates.update({ where: { Id: id }, data: toData(body) }));
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.encoderTemplates.delete({ where: { Id: id } });
  }
}
