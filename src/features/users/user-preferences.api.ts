import { controller } from '../controller-spec.js';

export default controller({
  name: 'UserPreferencesController',
  route: 'api/v3/user_preferences',
  tag: 'User Preferences',
  security: ['system'],
  responses: { 400: 'Invalid input, a missing name, or an unknown user_id', 403: 'System permission required' },
  imports: {
    './user-preferences-service.js': [
      'UserPreferencesService',
      'CreateUserPreferenceRequest',
      'UserPreferenceResponse',
      'UpdateUserPreferenceRequest',
    ],
  },
  services: { preferences: 'UserPreferencesService' },
  pages: { PaginatedUserPreferencesResponse: 'UserPreferenceResponse' },
  operations: [
    [
      'GET / list_user_preferences = preferences.list(user, page?: PageNumber, page_size?: PageSize): PaginatedUserPreferencesResponse',
      { doc: ["Lists the caller's own preferences; with System Edit, every user's."] },
    ],
    [
      'POST / create_user_preference = preferences.create(user, body: CreateUserPreferenceRequest): UserPreferenceResponse',
      { status: [201, 'Created'], responses: { 409: 'The user already has a preference with this name' } },
    ],
    [
      'GET {id} get_user_preference = preferences.get(user, id: Id): UserPreferenceResponse',
      { responses: { 404: 'Not found, or owned by another user and the caller lacks System Edit' } },
    ],
    [
      'PATCH {id} update_user_preference = preferences.update(user, id: Id, body: UpdateUserPreferenceRequest): UserPreferenceResponse',
      {
        responses: {
          404: 'Not found, or owned by another user and the caller lacks System Edit',
          409: 'The user already has a preference with this name',
        },
      },
    ],
    [
      'DELETE {id} delete_user_preference = preferences.remove(user, id: Id)',
      {
        status: [204, 'Deleted'],
        responses: { 404: 'Not found, or owned by another user and the caller lacks System Edit' },
      },
    ],
  ],
});
