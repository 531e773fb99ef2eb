import { controller } from '../controller-spec.js';

export default controller({
  name: 'EncoderTemplatesController',
  comment: ['Encoder parameter templates (EncoderTemplates). Monitor configuration: gated on Monitors.'],
  route: 'api/v3/encoder-templates',
  tag: 'Encoder Templates',
  security: ['monitors'],
  responses: { 400: 'Invalid input', 403: 'Monitors permission required' },
  imports: {
    './encoder-templates-service.js': [
      'EncoderTemplatesService',
      'CreateEncoderTemplateRequest',
      'EncoderTemplateResponse',
      'UpdateEncoderTemplateRequest',
    ],
  },
  services: { service: 'EncoderTemplatesService' },
  pages: { PaginatedEncoderTemplatesResponse: 'EncoderTemplateResponse' },
  operations: [
    [
      'GET / list_encoder_templates = service.list(encoder?: string, page?: PageNumber, page_size?: PageSize): PaginatedEncoderTemplatesResponse',
      { doc: ['Lists encoder templates.', '@param encoder Only templates of this encoder (exact match).'] },
    ],
    [
      'POST / create_encoder_template = service.create(body: CreateEncoderTemplateRequest): EncoderTemplateResponse',
      { status: [201, 'Created'], responses: { 409: 'This encoder already has a template with this name' } },
    ],
    'GET {id} get_encoder_template = service.get(id: Id): EncoderTemplateResponse',
    [
      'PATCH {id} update_encoder_template = service.update(id: Id, body: UpdateEncoderTemplateRequest): EncoderTemplateResponse',
      { responses: { 409: 'This encoder already has a template with this name' } },
    ],
    ['DELETE {id} delete_encoder_template = service.remove(id: Id)', { status: [204, 'Deleted'] }],
  ],
});
