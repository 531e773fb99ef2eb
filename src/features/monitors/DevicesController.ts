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
   * @param page 1-based page number (default 1).
   * @param page_size Rows per page, at most 1000 (default 25).
   * @isLong page
   * @minimum page 0
   * @maximum page 9007199254740991
   * @isLong page_size
   * @minimum page_size 0
   * @maximum page_size 1000
   */
  @Get()
  @OperationId('list_devices')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedDevicesResponse> {
    return this.devices.list(page, page_size);
  }

  @Post()
  @OperationId('create_device')
  @SuccessResponse(201, 'Created')
  public async create(@Body() body: CreateDeviceRequest): Promise<DeviceResponse> {
    return this.devices.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_device')
  public async get(@Path() id: number): Promise<DeviceResponse> {
    return this.devices.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_device')
  public async update(@Path() id: number, @Body() body: UpdateDeviceRequest): Promise<DeviceResponse> {
    return this.devices.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_device')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.devices.remove(id);
  }
}
