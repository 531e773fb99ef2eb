// `zmgate`: the server. -h, -V and --openapi are answered before configuration loads, so they
// work on a host whose configuration or database is broken.
import { SERVICE_VERSION } from '../version.js';
import { openapiDocument } from '../openapi/document.js';

const USAGE = `Usage: zmgate [options]

Runs the zmgate service (v3 REST API, live video and playback for ZoneMinder).

Options:
  -h, --help      print this help and exit
  -V, --version   print the version and exit
  --openapi       write the OpenAPI 3.1 document to standard output and exit

Configuration: /etc/zm/zm.conf (database), config/base.toml, the APP_PROFILE profile,
/etc/zmgate/prod.toml (or APP_CONFIG_FILE), then APP_* environment variables.
`;

export async function run(argv: string[]): Promise<void> {
  const [arg, ...rest] = argv;
  if (arg === undefined) {
    const { main } = await import('../server.js');
    return main();
  }
  if (rest.length === 0 && (arg === '-h' || arg === '--help')) {
    process.stdout.write(USAGE);
    return;
  }
  if (rest.length === 0 && (arg === '-V' || arg === '--version')) {
    process.stdout.write(`${SERVICE_VERSION}\n`);
    return;
  }
  if (rest.length === 0 && arg === '--openapi') {
    process.stdout.write(openapiDocument());
    return;
  }
  process.stderr.write(`zmgate: unknown argument ${JSON.stringify(argv.join(' '))}\n\n${USAGE}`);
  process.exitCode = 2;
}
