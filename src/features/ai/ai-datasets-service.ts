// AI datasets (AI_Datasets, ZoneMinder 1.39.17+): COCO and user-added label sets.
import { InvalidInputError, notFound } from '../../errors.js';
import type { PrismaClient } from '../../db/prisma.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { AI_Datasets } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

export interface AiDatasetResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  description?: string | null;
  version?: string | null;
  /**
   * @isInt
   * @minimum 0
   */
  num_classes: number;
}

export interface CreateAiDatasetRequest {
  /**
   * Unique dataset name.
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
   * Dataset version, e.g. "2017".
   * @maxLength 32
   */
  version?: string | null;
  /**
   * Number of object classes the dataset defines.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  num_classes: number;
}

export interface UpdateAiDatasetRequest {
  /**
   * Unique dataset name.
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
   * Dataset version; null clears it.
   * @maxLength 32
   */
  version?: string | null;
  /**
   * Number of object classes the dataset defines.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  num_classes?: number | null;
}

function toResponse(row: AI_Datasets): AiDatasetResponse {
  return {
    id: row.Id,
    name: row.Name,
    description: row.Description,
    version: row.Version,
    num_classes: row.NumClasses,
  };
}

/**
 * For bodies that name a dataset (models, object classes): a dataset that does not exist is bad
 * input (400 naming dataset_id), not a missing resource (404) and not a foreign-key error.
 */
export async function requireDataset(prisma: PrismaClient, id: number | null | undefined): Promise<void> {
  if (id == null) return;
  const found = await prisma.aI_Datasets.findUnique({ where: { Id: id }, select: { Id: true } });
  if (!found)
    throw new InvalidInputError(`AI dataset ${id} does not exist`, [['dataset_id', `no dataset with id ${id}`]]);
}

export class AiDatasetsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<AiDatasetResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.aI_Datasets.findMany({ orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.aI_Datasets.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<AiDatasetResponse> {
    const row = await this.prisma.aI_Datasets.findUnique({ where: { Id: id } });
    if (!row) throw notFound('AI dataset', id, 'CONFIG');
    return toResponse(row);
  }

  async create(body: CreateAiDatasetRequest): Promise<AiDatasetResponse> {
    const row = await this.prisma.aI_Datasets.create({
      data: {
        Name: body.name,
        Description: body.description ?? null,
        Version: body.version ?? null,
        NumClasses: body.num_classes,
      },
    });
    return toResponse(row);
  }

  /** Partial: absent fields keep their value; null clears a nullable column and is ignored otherwise. */
  async update(id: number, body: UpdateAiDatasetRequest): Promise<AiDatasetResponse> {
    await this.get(id);
    const row = await this.prisma.aI_Datasets.update({
      where: { Id: id },
      data: {
        Name: body.name ?? undefined,
        Description: body.description,
        Version: body.version,
        NumClasses: body.num_classes ?? undefined,
      },
    });
    return toResponse(row);
  }

  /**
   * Removes the dataset and its object classes in one transaction. The 1.39 schema's foreign
   * keys would cascade (classes) and set null (models) by themselves, but a database whose
   * constraints are missing (MyISAM, partial upgrade) must not be left with orphans, so both
   * are done explicitly.
   */
  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.$transaction([
      this.prisma.aI_Object_Classes.deleteMany({ where: { DatasetId: id } }),
      this.prisma.aI_Models.updateMany({ where: { DatasetId: id }, data: { DatasetId: null } }),
      this.prisma.aI_Datasets.delete({ where: { Id: id } }),
    ]);
  }
}
