// The target schema in zmgate's declarative form, and the helpers around it.
export * from './types.js';
export { targetSchema, ZONEMINDER_VERSION } from './target.js';
export {
  isServiceObject,
  SERVICE_PREFIX,
  SERVICE_TABLES,
  SCHEMA_LOG_TABLE,
  MIGRATIONS_TABLE,
} from './service-tables.js';
export { fromZoneMinderJson, type ZoneMinderSchemaJson } from './zoneminder-json.js';
