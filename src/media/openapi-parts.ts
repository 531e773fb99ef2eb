// Pieces shared by the OpenAPI operations of the media routes (playback, live, live images,
// WebRTC), which the OpenAPI build merges into the tsoa document (src/http/media-table.ts).

/** A response carrying the error envelope. */
export const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/AppResponseError' } } },
});

export const monitorIdParam = {
  in: 'path',
  name: 'monitor_id',
  required: true,
  description: 'Monitor id',
  schema: { type: 'integer', format: 'int32', minimum: 0 },
};

/** The `token` query parameter, for URLs that cannot carry an Authorization header. */
export const tokenParam = (description: string) => ({
  in: 'query',
  name: 'token',
  required: false,
  description,
  schema: { type: 'string' },
});
