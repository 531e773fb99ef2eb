// ava for scripts/test-arm64.sh: the bundled facade tests (plain JS) under qemu-aarch64, in
// worker threads (a forked worker would be an arm64 node the kernel cannot exec without binfmt).
export default {
  files: ['build/arm64-tests/*.test.mjs'],
  workerThreads: true,
  concurrency: 1, // one file at a time: the realtime LL-HLS tests have deadlines that emulation under load can miss
  timeout: '300s', // emulation is 5–20× slower than native
};
