#!/usr/bin/env node
// Launcher for the simulated cameras (see src/sim/cli.ts).
import('../dist/sim/cli.js')
  .then((cli) => cli.run(process.argv.slice(2)))
  .catch((err) => {
    process.stderr.write(`zmgate-sim: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
