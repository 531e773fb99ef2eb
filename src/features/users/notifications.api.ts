import { controller } from '../controller-spec.js';

export default controller({
  name: 'NotificationsController',
  comment: [
    'Push-notification registrations. Any authenticated user manages their own device tokens;',
    'System View sees all rows and System Edit changes all (see NotificationsService).',
  ],
  route: 'api/v3/notifications',
  tag: 'Notifications',
  security: ['authenticated'],
  responses: {
    400: 'Invalid input: unknown user, bad platform or monitor list, value too long',
    403: 'A registration of another user, without System Edit',
  },
  imports: {
    './notifications-service.js': [
      'NotificationsService',
      'CreateNotificationRequest',
      'NotificationResponse',
      'UpdateNotificationRequest',
    ],
  },
  services: { service: 'NotificationsService' },
  pages: { PaginatedNotificationsResponse: 'NotificationResponse' },
  operations: [
    [
      'GET / list_notifications = service.list(user, user_id?: Id, page?: PageNumber, page_size?: PageSize): PaginatedNotificationsResponse',
      {
        doc: [
          "Lists push registrations: the caller's own, or everyone's with System View.",
          "@param user_id Only rows of this user (others' rows need System View).",
        ],
      },
    ],
    [
      'POST / create_notification = service.create(user, body: CreateNotificationRequest): NotificationResponse',
      { status: [201, 'Created'], responses: { 409: 'This push token is already registered' } },
    ],
    [
      'GET {id} get_notification = service.get(user, id: Id): NotificationResponse',
      { responses: { 404: 'Not found, or owned by another user (without System View)' } },
    ],
    [
      'PATCH {id} update_notification = service.update(user, id: Id, body: UpdateNotificationRequest): NotificationResponse',
      {
        responses: {
          404: 'Not found, or owned by another user (without System View)',
          409: 'This push token is already registered',
        },
      },
    ],
    [
      'DELETE {id} delete_notification = service.remove(user, id: Id)',
      { status: [204, 'Deleted'], responses: { 404: 'Not found, or owned by another user (without System View)' } },
    ],
  ],
});
