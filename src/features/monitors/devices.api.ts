import { controller } from '../controller-spec.js';

export default controller({
  name: 'DevicesController',
  route: 'api/v3/devices',
  tag: 'Devices',
  security: ['devices'],
  responses: { 400: 'Invalid input', 403: 'Devices permission required' },
  imports: {
    './devices-service.js': ['DevicesService', 'CreateDeviceRequest', 'DeviceResponse', 'UpdateDeviceRequest'],
  },
  services: { devices: 'DevicesService' },
  pages: { PaginatedDevicesResponse: 'DeviceResponse' },
  operations: [
    [
      'GET / list_devices = devices.list(page?: PageNumber, page_size?: PageSize): PaginatedDevicesResponse',
      { doc: ['Lists devices.'] },
    ],
    ['POST / create_device = devices.create(body: CreateDeviceRequest): DeviceResponse', { status: [201, 'Created'] }],
    'GET {id} get_device = devices.get(id: Id): DeviceResponse',
    'PATCH {id} update_device = devices.update(id: Id, body: UpdateDeviceRequest): DeviceResponse',
    ['DELETE {id} delete_device = devices.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
