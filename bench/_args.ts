// The benches' command-line flags, each given as `--name value`.

/** The value after `--name`, if the flag is given. */
export function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** The number after `--name`, or `fallback`. */
export function numberFlag(name: string, fallback: number): number {
  const value = flag(name);
  return value === undefined ? fallback : Number(value);
}
