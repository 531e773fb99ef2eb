// The docs/zoneminder/shared-memory.md layout tables live in src/sim/shm-layouts.ts (the simulated camera writes its
// shared memory from them); tests keep importing them from here.
export * from '../../src/sim/shm-layouts.js';
