// Daemon identities as zmdc.pl keys them: the string "name arg1 arg2" (e.g. "zmc -m 7"), the
// daemon name from a fixed whitelist and every argument matching zmdc's pattern
// (docs/zoneminder/daemons.md, "Identities").

/** The daemons zmdc.pl agrees to run; zmeventnotification.pl only when ZoneMinder enables it. */
export const DAEMON_NAMES = [
  'zmc',
  'zmfilter.pl',
  'zmaudit.pl',
  'zmtrigger.pl',
  'zmx10.pl',
  'zmwatch.pl',
  'zmupdate.pl',
  'zmstats.pl',
  'zmtrack.pl',
  'zmcontrol.pl',
  'zm_rtsp_server',
  'zmtelemetry.pl',
  'zmalarm-server.py',
  'zmeventnotification.pl',
] as const;

const NAMES = new Set<string>(DAEMON_NAMES);

/** zmdc.pl's argument whitelist. */
export const ARG_PATTERN = /^-{0,2}[\w/?&=.-]+$/;

export interface DaemonId {
  name: string;
  args: string[];
  /** "name arg1 arg2", the key zmdc.pl and the REST routes use. */
  key: string;
}

export function isDaemonName(name: string): boolean {
  return NAMES.has(name);
}

export function daemonId(name: string, args: readonly string[] = []): DaemonId {
  return { name, args: [...args], key: [name, ...args].join(' ') };
}

/** The first argument outside zmdc's whitelist pattern, or null. */
export function badArgument(args: readonly string[]): string | null {
  return args.find((a) => !ARG_PATTERN.test(a)) ?? null;
}

/** Parses "zmc -m 7" (any whitespace); null when the name is not a known daemon or an argument is refused. */
export function parseDaemonKey(key: string): DaemonId | null {
  const [name, ...args] = key.trim().split(/\s+/);
  if (!name || !isDaemonName(name) || badArgument(args)) return null;
  return daemonId(name, args);
}

/** The monitor a daemon serves: `zmc -m N`, `zmtrack.pl -m N`, `zmcontrol.pl --id N`. */
export function monitorIdOf(id: DaemonId): number | undefined {
  const flag = id.name === 'zmcontrol.pl' ? '--id' : id.name === 'zmc' || id.name === 'zmtrack.pl' ? '-m' : null;
  if (!flag) return undefined;
  const i = id.args.indexOf(flag);
  const v = i >= 0 ? id.args[i + 1] : undefined;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}
