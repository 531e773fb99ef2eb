// AI models (AI_Models): a model file, its framework and the dataset whose labels it emits.
import { notFound } from '../../errors.js';
import { requireDataset } from './ai-datasets-service.js';
import { pageRequest, type Page, listPage } from '../../api/pagination.js';
import type { AI_Models } from '../../generated/prisma/client.js';
import { DbService } from '../db-service.js';

/** AI_Models.Framework as stored. */
export type Framework = 'TensorFlow' | 'PyTorch' | 'ONNX' | 'OpenVINO' | 'TensorRT' | 'Other';

export interface AiModelResponse {
  /**
   * @isInt
   * @minimum 0
   */
  id: number;
  name: string;
  description?: string | null;
  model_path?: string | null;
  framework: Framework;
  version?: string | null;
  /**
   * @isInt
   * @minimum 0
   */
  dataset_id?: number | null;
  /** Name of the dataset `dataset_id` refers to (null without a dataset). */
  dataset_name?: string | null;
  /**
   * 0 or 1.
   * @isInt
   * @minimum 0
   */
  enabled: number;
}

export interface CreateAiModelRequest {
  /**
   * Unique model name.
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
   * Path of the model file.
   * @maxLength 255
   */
  model_path?: string | null;
  /** Default ONNX. */
  framework?: Framework | null;
  /**
   * Model version.
   * @maxLength 32
   */
  version?: string | null;
  /**
   * An existing AI dataset (400 otherwise).
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  dataset_id?: number | null;
  /**
   * 0 or 1 (default 0).
   * @isInt
   * @minimum 0
   * @maximum 1
   */
  enabled?: number | null;
}

export interface UpdateAiModelRequest {
  /**
   * Unique model name.
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
   * Path of the model file; null clears it.
   * @maxLength 255
   */
  model_path?: string | null;
  framework?: Framework | null;
  /**
   * Model version; null clears it.
   * @maxLength 32
   */
  version?: string | null;
  /**
   * An existing AI dataset (400 otherwise); null detaches the model.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  dataset_id?: number | null;
  /**
   * 0 or 1.
   * @isInt
   * @minimum 0
   * @maximum 1
   */
  enabled?: number | null;
}

type ModelRow = AI_Models & { AI_Datasets: { Name: string } | null };

/** Every read joins the dataset so the name is resolved in the same query. */
const withDataset = { AI_Datasets: { select: { Name: true } } } as const;

function toResponse(row: ModelRow): AiModelResponse {
  return {
    id: row.Id,
    name: row.Name,
    description: row.Description,
    model_path: row.ModelPath,
    framework: row.Framework,
    version: row.Version,
    dataset_id: row.DatasetId,
    dataset_name: row.AI_Datasets?.Name ?? null,
    enabled: row.Enabled,
  };
}

export class AiModelsService extends DbService {
  async list(page?: number, pageSize?: number): Promise<Page<AiModelResponse>> {
    const req = pageRequest(page, pageSize);
    return listPage(
      req,
      this.prisma.aI_Models.findMany({ include: withDataset, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.aI_Models.count(),
      toResponse,
    );
  }

  async get(id: number): Promise<AiModelResponse> {
    const row = await this.prisma.aI_Models.findUnique({ where: { Id: id }, include: withDataset });
    if (!row) throw notFound('AI model', id, 'CONFIG');
    return toResponse(row);
  }

  async create(body: CreateAiModelRequest): Promise<AiModelResponse> {
    await requireDataset(this.prisma, body.dataset_id);
    const row = await this.prisma.aI_Models.create({
      data: {
        Name: body.name,
        Description: body.description ?? null,
        ModelPath: body.model_path ?? null,
        Framework: body.framework ?? undefined,
        Version: body.version ?? null,
        DatasetId: body.dataset_id ?? null,
        Enabled: body.enabled ?? undefined,
      },
      include: withDataset,
    });
    return toResponse(row);
  }

  /** Partial: absent fields keep their value; null clears a nullable column and is ignored otherwise. */
  async update(id: number, body: UpdateAiModelRequest): Promise<AiModelResponse> {
    await this.get(id);
    await requireDataset(this.prisma, body.dataset_id);
    const row = await this.prisma.aI_Models.update({
      where: { Id: id },
      data: {
        Name: body.name ?? undefined,
        Description: body.description,
        ModelPath: body.model_path,
        Framework: body.framework ?? undefined,
        Version: body.version,
        DatasetId: body.dataset_id,
        Enabled: body.enabled ?? undefined,
      },
      include: withDataset,
    });
    return toResponse(row);
  }

  async remove(id: number): Promise<void> {
    await this.get(id);
    await this.prisma.aI_Models.delete({ where: { Id: id } });
  }
}
