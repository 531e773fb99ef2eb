import { controller } from '../controller-spec.js';

export default controller({
  name: 'MenuItemsController',
  comment: ["The web UI's menu entries (Menu_Items). Site-wide UI configuration: System-gated."],
  route: 'api/v3/menu-items',
  tag: 'Menu Items',
  security: ['system'],
  responses: { 400: 'Invalid input', 403: 'System permission required' },
  imports: {
    './menu-items-service.js': [
      'MenuItemsService',
      'CreateMenuItemRequest',
      'MenuItemResponse',
      'UpdateMenuItemRequest',
    ],
  },
  services: { service: 'MenuItemsService' },
  pages: { PaginatedMenuItemsResponse: 'MenuItemResponse' },
  operations: [
    [
      'GET / list_menu_items = service.list(page?: PageNumber, page_size?: PageSize): PaginatedMenuItemsResponse',
      { doc: ['Lists menu entries in menu order (sort_order, then id).'] },
    ],
    [
      'POST / create_menu_item = service.create(body: CreateMenuItemRequest): MenuItemResponse',
      { status: [201, 'Created'], responses: { 409: 'An entry with this menu_key exists' } },
    ],
    'GET {id} get_menu_item = service.get(id: Id): MenuItemResponse',
    [
      'PATCH {id} update_menu_item = service.update(id: Id, body: UpdateMenuItemRequest): MenuItemResponse',
      { responses: { 409: 'An entry with this menu_key exists' } },
    ],
    ['DELETE {id} delete_menu_item = service.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
