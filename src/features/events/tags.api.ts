import { controller } from '../controller-spec.js';

export default controller({
  name: 'TagsController',
  route: 'api/v3/tags',
  tag: 'Tags',
  security: ['events'],
  responses: { 400: 'Invalid input', 403: 'Events permission required' },
  imports: {
    './tags-service.js': ['TagsService', 'CreateTagRequest', 'TagDetailResponse', 'TagResponse', 'UpdateTagRequest'],
  },
  services: { tags: 'TagsService' },
  pages: { PaginatedTagsResponse: 'TagResponse' },
  operations: [
    [
      'GET / list_tags = tags.list(user, page?: number, page_size?: PageSize): PaginatedTagsResponse',
      {
        doc: [
          'Lists tags in Id order; `event_count` counts only events of monitors the caller may see.',
          '@param page 1-based page number (default 1).',
          '@isLong page',
          '@minimum page 0',
        ],
      },
    ],
    [
      'POST / create_tag = tags.create(user, body: CreateTagRequest): TagResponse',
      {
        doc: ['Creates a tag; the creator is the caller. A name already in use is a 409.'],
        status: [201, 'Created'],
        responses: { 409: 'Name already in use' },
      },
    ],
    [
      'GET {id} get_tag = tags.get(user, id: number, page?: number, page_size?: PageSize): TagDetailResponse',
      {
        doc: [
          'A tag with one page of its events (newest first), only events of monitors the caller may see.',
          '@param page 1-based page of events (default 1).',
          '@param page_size Events per page, at most 1000 (default 25).',
          '@isLong id must be an integer >= 0',
          '@minimum id 0',
          '@isLong page',
          '@minimum page 0',
        ],
      },
    ],
    [
      'PATCH {id} update_tag = tags.update(user, id: number, body: UpdateTagRequest): TagResponse',
      { doc: ['@isLong id must be an integer >= 0', '@minimum id 0'], responses: { 409: 'Name already in use' } },
    ],
    [
      'DELETE {id} delete_tag = tags.remove(id: number)',
      {
        doc: ['Deletes the tag and its assignments.', '@isLong id must be an integer >= 0', '@minimum id 0'],
        status: [204, 'Deleted'],
      },
    ],
  ],
});
