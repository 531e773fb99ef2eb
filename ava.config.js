// workerThreads: false because ava 7 + tsx cannot load .ts in worker threads on Node 20.
export default {
  files: ['test/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  workerThreads: false,
  timeout: '120s',
  concurrency: 2,
};
