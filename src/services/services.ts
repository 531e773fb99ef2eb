// The composition of services one app instance uses. Controllers receive this object.
import type { AppConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { DbPool } from '../db/pool.js';
import { ServerService } from './server-service.js';

export interface Services {
  config: AppConfig;
  log: Logger;
  server: ServerService;
}

export function createServices(config: AppConfig, log: Logger, pool: DbPool): Services {
  return { config, log, server: new ServerService(pool, log) };
}
