// AI object classes (AI_Object_Classes): the labels of a dataset, unique per (dataset, name).
import { notFound } from '../../errors.js';
import { requireDataset } from './ai-datasets-service.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { AI_Object_Classes } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface AiObjectClassResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  /**
   * @isInt
   * @minimum 0
   */
  dataset_id: number;
  class_name: string;
  /**
   * @isInt
   * @minimum 0
   */
  class_index: number;
  description?: string | null;
}

export interface CreateAiObjectClassRequest {
  /**
   * An existing AI dataset (400 otherwise).
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  dataset_id: number;
  /**
   * Label, unique within the dataset.
   * @minLength 1
   * @maxLength 64
   */
  class_name: string;
  /**
   * The label's index in the model output.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  class_index: number;
  /**
   * Free text.
   * @maxLength 65535
   */
  description?: string | null;
}

export interface UpdateAiObjectClassRequest {
  /**
   * An existing AI dataset (400 otherwise).
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  dataset_id?: number | null;
  /**
   * Label, unique within the dataset.
   * @minLength 1
   * @maxLength 64
   */
  class_name?: string | null;
  /**
   * The label's index in the model output.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  class_index?: number | null;
  /**
   * Free text; null clears it.
   * @maxLength 65535
   */
  description?: string | null;
}

function toResponse(row: AI_Object_Classes): AiObjectClassResponse {
  return {
    id: row.Id,
    dataset_id: row.DatasetId,
    class_name: row.ClassName,
    class_index: row.ClassIndex,
    description: row.Description,
  };
}

export class AiObjectClassesService extends DbService {
  /** Ordered by dataset, then by class index (the model's output order). */
  async list(datasetId?: number, page?: number, pageSize?: number): Promise<Page<AiObjectClassResponse>> {
    const req = pageRequest(page, pageSize);
    const where = datasetId === undefined ? {} : { DatasetId: datasetId };
    return listPage(
      req,
      this.prisma.aI_Object_Classes.findMany({
        where,
        orderBy: [{ DatasetId: 'asc' }, { ClassIndex: 'asc' }, { Id: 'asc' }],
        skip: req.skip,
        take: req.take,
      }),
      this.prisma.aI_Object_Classes.count({ where }),
      toResponse,
    );
  }

  async get(id: number): Promise<AiObjectClassResponse> {
    const row = await this.prisma.aI_Object_Classes.findUnique({ where: { Id: id } });
    if (!row) throw notFound('AI object class', id, 'CONFIG');
    return toResponse(row);
  }

  async create(body: CreateAiObjectClassRequest): Promise<AiObjectClassResponse> {
    await requireDataset(this.prisma, body.dataset_id);
    const row = await this.prisma.aI_Object_Classes.create({
      data: {
        DatasetId: body.dataset_id,
        ClassName: body.class_name,
        ClassIndex: body.class_index,
        Description: body.description ?? null,
      },
    });
    return toResponse(row);
  }

  /** Partial: absent fields keep their value; null clears a nullable column and is ignored otherwise. */
  async update(id: number, body: UpdateAiObjectClassRequest): Promise<AiObjectClassResponse> {
    await this.get(id);
    await requireDataset(this.prisma, body.dataset_id);
    const row = await this.prisma.aI_Object_Classes.update({
      where: { Id: id },
      data: {
        DatasetId: body.dataset_id ?? undefined,
        ClassName: body.class_name ?? undefined,
        ClassIndex: body.class_index ?? undefined,
        Description: body.description,
      },
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.aI_Object_Classes.delete({ where: { Id: id } });
  }
}
