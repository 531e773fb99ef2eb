// Helper of bench/live-viewers.ts: the service in a process of its own (configured by APP_* in the
// environment), so its CPU time and RSS can be read from /proc. Prints `url <base url>`.
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';

const { config } = loadConfig({ env: process.env, defaultOperatorFile: '/nonexistent/prod.toml' });
const app = await startServer(config, createLogger({ level: 'error' }));
process.stdout.write(`url ${app.url}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
