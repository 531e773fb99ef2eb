// Pieces shared by the OpenAPI path items of the plain express media routes (playback, live,
// live images, WebRTC), which the OpenAPI pass (openapi-post.mjs) merges into the tsoa document.

/** A response carrying the error envelope. */
export const error = (description) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/AppResponseError' } } } });

export const monitorIdParam = {
  in: 'path',
  name: 'monitor_id',
  required: true,
  description: 'Monitor id',
  schema: { type: 'integer', format: 'int32', minimum: 0 },
};

/** The `token` query parameter, for URLs that cannot carry an Authorization header. */
export const tokenParam = (description) => ({ in: 'query', name: 'token', required: false, description, schema: { type: 'string' } });
