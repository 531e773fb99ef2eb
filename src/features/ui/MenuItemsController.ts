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
  MenuItemsService,
  type CreateMenuItemRequest,
  type MenuItemResponse,
  type UpdateMenuItemRequest,
} from './menu-items-service.js';

export interface PaginatedMenuItemsResponse extends Page<MenuItemResponse> {}

// The web UI's menu entries (Menu_Items). Site-wide UI configuration: System-gated.
@Route('api/v3/menu-items')
@Tags('Menu Items')
@Security('jwt', ['system'])
@Response<AppResponseError>(400, 'Invalid input')
@Response<AppResponseError>(403, 'System permission required')
export class MenuItemsController extends FeatureController {
  private readonly service = this.services.get(MenuItemsService);

  /**
   * Lists menu entries in menu order (sort_order, then id).
   */
  @Get()
  @OperationId('list_menu_items')
  public async list(@Query() page?: PageNumber, @Query() page_size?: PageSize): Promise<PaginatedMenuItemsResponse> {
    return this.service.list(page, page_size);
  }

  @Post()
  @OperationId('create_menu_item')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'An entry with this menu_key exists')
  public async create(@Body() body: CreateMenuItemRequest): Promise<MenuItemResponse> {
    return this.service.create(body);
  }

  @Get('{id}')
  @OperationId('get_menu_item')
  public async get(@Path() id: Id): Promise<MenuItemResponse> {
    return this.service.get(id);
  }

  @Patch('{id}')
  @OperationId('update_menu_item')
  @Response<AppResponseError>(409, 'An entry with this menu_key exists')
  public async update(@Path() id: Id, @Body() body: UpdateMenuItemRequest): Promise<MenuItemResponse> {
    return this.service.update(id, body);
  }

  @Delete('{id}')
  @OperationId('delete_menu_item')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: Id): Promise<void> {
    await this.service.remove(id);
  }
}
