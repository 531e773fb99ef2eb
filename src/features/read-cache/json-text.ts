// Response bodies serialized once and sent many times. A cached answer (an object handed to
// many requests) carries its JSON body here, already UTF-8 encoded; the app's res.json() sends
// those bytes instead of serializing and encoding the object again (src/http/app.ts). They are
// exactly the UTF-8 of JSON.stringify(value), what res.json() would send.
const bodies = new WeakMap<object, Buffer>();

/** Serializes `value` now and remembers the bytes for every later send. Returns `value`. */
export function withJsonText<T extends object>(value: T): T {
  bodies.set(value, Buffer.from(JSON.stringify(value), 'utf8'));
  return value;
}

/** The remembered JSON body of `value`, if it has one. */
export function jsonBodyOf(value: unknown): Buffer | undefined {
  return typeof value === 'object' && value !== null ? bodies.get(value) : undefined;
}
