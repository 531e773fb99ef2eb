// Response bodies serialized once and sent many times. A cached answer (an object handed to
// many requests) carries its JSON text here; the app's res.json() sends that text instead of
// serializing the object again (src/http/app.ts). The text is exactly JSON.stringify(value),
// what res.json() would produce, so the bytes on the wire do not change.
const texts = new WeakMap<object, string>();

/** Serializes `value` now and remembers the text for every later send. Returns `value`. */
export function withJsonText<T extends object>(value: T): T {
  texts.set(value, JSON.stringify(value));
  return value;
}

/** The remembered JSON text of `value`, if it has one. */
export function jsonTextOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}
