import { controller } from '../controller-spec.js';

export default controller({
  name: 'MeController',
  route: 'api/v3/me',
  tag: 'Auth',
  security: ['authenticated'],
  imports: {
    '../../api/envelopes.js': ['MessageResponse'],
    './me-service.js': ['MeService', 'ChangePasswordRequest', 'MeResponse'],
  },
  services: { account: 'MeService' },
  operations: [
    [
      'GET / me = account.describe(user): MeResponse [polled]',
      { doc: ["The caller's account and token times; any authenticated account may call it."] },
    ],
    [
      'PUT password change_password = account.changePassword(user, body: ChangePasswordRequest): MessageResponse',
      {
        doc: ["Changes the caller's password; every token of the account is revoked."],
        responses: { 400: 'Invalid input', 401: 'Missing token or wrong current password' },
      },
    ],
  ],
});
