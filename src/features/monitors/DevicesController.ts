import {
  Body,
  Delete,
  Get,
  OperationId,
  Patch,
  Path,
  Post,
  Query,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import type { AppResponseError } from '../../api/envelopes.js';
import type { Id, PageNumber, PageSize } from '../../api/params.js';
import type { Page } from '../../api/pagination.js';
import { FeatureController } from '../feature-controller.js';
import {
  DevicesService,
  type CreateDeviceRequest,
  type DeviceResponse,
  type UpdateDeviceRequest,
} from './devices-service.js';

export interface PaginatedDevicesResponse extends Page<DeviceResponse> {}

@Route('api/v3/devices')
@Tags('Devices')
@Security('jwt', ['devices'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'Devices permission required')
export class DevicesController extends FeatureController {
  private readonly devices = this.services.get(DevicesService);

  /**
   * Lists devices.
   */
  @Get()
  @OperationId('list_devices')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedDevicesResponse> {
    return this.devices.list(page, page_size);
  }

  @Post()
  @OperationId('create_device')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateDeviceRequest): Promise<DeviceResponse> {
    return this.devices.create(body);
  }

  @Get('{id}')
  @OperationId('get_device')
  public async get(@Path() id: Id): Promise<DeviceResponse> {
    return this.devices.get(id);
  }

  @Patch('{id}')
  @OperationId('update_device')
  public async update(@Path() id: Id, @Body() body: UpdateDeviceRequest): Promise<DeviceResponse> {
    return this.devices.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_device')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.devices.remove(id);
  }
}
