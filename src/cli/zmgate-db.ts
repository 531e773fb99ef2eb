// `zmgate-db`: the database migration tool. The commands arrive with the database issue; until
// then it prints usage.
import { SERVICE_VERSION } from '../version.js';

const USAGE = `Usage: zmgate-db <command> [-u <database_url>]

Commands:
  up -u URL       create the ZoneMinder schema in a fresh, empty database
  bridge -u URL   bring an existing ZoneMinder database (1.36 or later) up to date
  status -u URL   list migrations and whether each is applied (read-only)

The URL may also come from DATABASE_URL. Back up before 'bridge'.
`;

export async function run(argv: string[]): Promise<void> {
  const [arg] = argv;
  if (arg === '-V' || arg === '--version') {
    process.stdout.write(`${SERVICE_VERSION}\n`);
    return;
  }
  if (arg === '-h' || arg === '--help') {
    process.stdout.write(USAGE);
    return;
  }
  process.stderr.write(`zmgate-db: not implemented yet\n\n${USAGE}`);
  process.exitCode = 2;
}
