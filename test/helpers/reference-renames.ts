// operationIds that the interface spec ("Versioning" 4) records as renamed after the reference
// surface was captured (the surface still has `update_state` on both routes and the camera-model
// ids on the AI-model routes, which a document with unique operationIds cannot have). Keyed by
// "<method> <path>", lower-case method.
export const DOCUMENTED_RENAMES: Readonly<Record<string, string>> = {
  'get /api/v3/ai/models': 'list_ai_models',
  'post /api/v3/ai/models': 'create_ai_model',
  'get /api/v3/ai/models/{id}': 'get_ai_model',
  'patch /api/v3/ai/models/{id}': 'update_ai_model',
  'delete /api/v3/ai/models/{id}': 'delete_ai_model',
  'patch /api/v3/monitors/{id}/state': 'update_monitor_state',
  'patch /api/v3/states/{id}': 'update_state_preset',
};

/** The operationId zmgate must serve for a reference operation. */
export function expectedOperationId(method: string, path: string, referenceId: string): string {
  return DOCUMENTED_RENAMES[`${method.toLowerCase()} ${path}`] ?? referenceId;
}
