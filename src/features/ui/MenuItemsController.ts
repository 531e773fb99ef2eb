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
  @OperationId('list_menu_items')
  public async list(@Query() page?: number, @Query() page_size?: number): Promise<PaginatedMenuItemsResponse> {
    return this.service.list(page, page_size);
  }

  @Post()
  @OperationId('create_menu_item')
  @SuccessResponse(201, 'Created')
  @Response<AppResponseError>(409, 'An entry with this menu_key exists')
  public async create(@Body() body: CreateMenuItemRequest): Promise<MenuItemResponse> {
    return this.service.create(body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('{id}')
  @OperationId('get_menu_item')
  public async get(@Path() id: number): Promise<MenuItemResponse> {
    return this.service.get(id);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Patch('{id}')
  @OperationId('update_menu_item')
  @Response<AppResponseError>(409, 'An entry with this menu_key exists')
  public async update(@Path() id: number, @Body() body: UpdateMenuItemRequest): Promise<MenuItemResponse> {
    return this.service.update(id, body);
  }

  /**
   * @isInt id must be an integer >= 0
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Delete('{id}')
  @OperationId('delete_menu_item')
  @SuccessResponse(204, 'Deleted')
  public async remove(@Path() id: number): Promise<void> {
    await this.service.remove(id);
  }
}
