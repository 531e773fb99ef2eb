#!/usr/bin/env node
// Launcher: runs the compiled CLI from dist/ (built by `npm run build`, also on npm install).
import('../dist/cli/zmgate-takeover.js')
  .then(
    async (cli) => process.exit(await cli.run(process.argv.slice(2))),
    (err) => {
      if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('/dist/cli/')) {
        process.stderr.write('zmgate-takeover: not built yet; run `npm run build` in the zmgate directory\n');
        process.exit(1);
      }
      throw err;
    },
  )
  .catch((err) => {
    process.stderr.write(`zmgate-takeover: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
