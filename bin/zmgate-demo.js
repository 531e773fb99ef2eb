#!/usr/bin/env node
// Launcher for `npm run demo` (see src/cli/zmgate-demo.ts).
import('../dist/cli/zmgate-demo.js')
  .then((cli) => cli.run(process.argv.slice(2)))
  .catch((err) => {
    process.stderr.write(`zmgate-demo: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
