// Latency bounds in tests stretch by ZM_TEST_TIME_SCALE (default 1). scripts/test-arm64.sh sets
// it under qemu-user, where emulation makes everything several times slower; the bound still
// catches a close() that waits for a timeout, or a waiter woken only by polling.
const raw = Number(process.env.ZM_TEST_TIME_SCALE ?? 1);
export const TIME_SCALE = Number.isFinite(raw) && raw >= 1 ? raw : 1;
