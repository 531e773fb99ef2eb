// Argument checks shared by the facade modules: TypeError for the wrong kind of value,
// RangeError for a value out of range, with the option's name in the message.

export function requireInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer, got ${describe(value)}`);
  }
  if (value < min || value > max) throw new RangeError(`${name} must be in ${min}..${max}, got ${value}`);
  return value;
}

export function optionalInteger(name: string, value: unknown, min: number, max: number): number | undefined {
  return value === undefined ? undefined : requireInteger(name, value, min, max);
}

export function requireBytes(name: string, value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array))
    throw new TypeError(`${name} must be a Buffer or Uint8Array, got ${describe(value)}`);
  return value;
}

export function requireBoolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${describe(value)}`);
  return value;
}

export function requireObject(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${name} must be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Rejects misspelt options (e.g. `initialDelay` for `initialDelayMs`) instead of ignoring them. */
export function rejectUnknownKeys(name: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key))
      throw new TypeError(`${name} has an unknown option "${key}" (known: ${known.join(', ')})`);
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  return String(value);
}
