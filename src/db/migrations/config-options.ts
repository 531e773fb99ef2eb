// 0007: the Config table completed to ZoneMinder 1.39.22's 259 options (see seed/config.ts for
// exactly what is and is not touched: values never are).
import { completeConfig, completeConfigSql } from '../seed/index.js';
import type { DataMigration } from './types.js';

const ID = '0007_config_options';

export const configOptions: DataMigration = {
  id: ID,
  name: "Config: insert the 1.39.22 options the database lacks, with their defaults; refresh the others' metadata, never their values",
  since: '',
  destructive: false,
  place: 'end',
  needed: (ctx) => ctx.config.missing.length > 0 || ctx.config.stale.length > 0,
  describe: (ctx) => completeConfigSql(ctx.config),
  async run(conn, ctx) {
    const { inserted, refreshed } = await completeConfig(conn, ctx.config);
    ctx.notes.push(
      `${ID}: ${inserted} option(s) added with their defaults, ${refreshed} option(s) with refreshed metadata; no value changed`,
    );
  },
};
