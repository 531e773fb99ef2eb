#!/usr/bin/env node
// Launcher for the push stream watcher (see src/cli/zmgate-watch.ts).
import('../dist/cli/zmgate-watch.js')
  .then((cli) => cli.run(process.argv.slice(2)))
  .catch((err) => {
    process.stderr.write(`zmgate-watch: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
