// `zmgate-takeover`: moves daemon supervision from ZoneMinder's zoneminder.service to zmgate
// (takeover mode) and back.
//
//   zmgate-takeover [-y]                   take over
//   zmgate-takeover --revert|--passive [-y] hand back to zoneminder.service
//
// Needs root. Before changing anything it checks that zmgate answers in passive mode, that its
// service user can write the events directory and is in the stream-socket group. Take over:
// disable and stop zoneminder.service, set daemon.enabled = true in the operator file
// (/etc/zmgate/prod.toml, or APP_CONFIG_FILE), restart zmgate.service. Revert: the flag back
// to false and zmgate restarted first (it stops its daemons), then zoneminder.service enabled and
// started. Every step is printed; a step already in the wanted state is skipped (idempotent); a
// failure undoes the steps done so far, in reverse. Exit codes: 0 done, 1 failed (rolled back),
// 2 usage, 3 refused.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.js';
import { DEFAULT_OPERATOR_FILE } from '../config/load.js';

export const EXIT = { ok: 0, failure: 1, usage: 2, refused: 3 } as const;

const USAGE = `Usage: zmgate-takeover [--revert | --passive] [-y]

  (no option)         take over: zmgate supervises ZoneMinder's daemons
  --revert, --passive hand supervision back to zoneminder.service
  -y, --yes           do not ask for confirmation
  -h, --help          this text
`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  confirm: (question: string) => Promise<boolean>;
  env: NodeJS.ProcessEnv;
  uid: number;
}

class StepFailed extends Error {}

/** Sets `[daemon] enabled = <value>` in TOML text, adding the table or key when missing. */
export function setDaemonEnabled(text: string, enabled: boolean): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\s*\[daemon\]\s*(#.*)?$/.test(l));
  if (start < 0) return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}\n[daemon]\nenabled = ${enabled}\n`;
  let end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  if (end < 0) end = lines.length;
  for (let i = start + 1; i < end; i++) {
    if (/^\s*enabled\s*=/.test(lines[i])) {
      lines[i] = `enabled = ${enabled}`;
      return lines.join('\n');
    }
  }
  lines.splice(start + 1, 0, `enabled = ${enabled}`);
  return lines.join('\n');
}

/** daemon.enabled as the operator file says it (undefined: not set). */
function fileEnabled(text: string): boolean | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^\s*\[daemon\]/.test(l));
  if (start < 0) return undefined;
  for (let i = start + 1; i < lines.length && !/^\s*\[/.test(lines[i]); i++) {
    const m = /^\s*enabled\s*=\s*(true|false)/.exec(lines[i]);
    if (m) return m[1] === 'true';
  }
  return undefined;
}

/** Commands run with the caller's environment (tests put stand-ins on its PATH). */
function runSystemctl(args: string[], env: NodeJS.ProcessEnv): { ok: boolean; out: string } {
  const r = spawnSync('systemctl', args, { encoding: 'utf8', timeout: 120_000, env });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

async function healthy(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  do {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  } while (Date.now() < deadline);
  return false;
}

/** The service user's numeric ids (root when the unit names none). */
function userIds(user: string, env: NodeJS.ProcessEnv): { uid: number; gids: number[] } {
  if (!user || user === 'root') return { uid: 0, gids: [0] };
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8', env }).trim());
  const gids = execFileSync('id', ['-G', user], { encoding: 'utf8', env }).trim().split(/\s+/).map(Number);
  return { uid, gids };
}

function canWrite(path: string, ids: { uid: number; gids: number[] }): boolean {
  const s = statSync(path); // throws when it does not exist
  if (ids.uid === 0) return true;
  if (s.uid === ids.uid) return (s.mode & 0o200) !== 0 && (s.mode & 0o100) !== 0;
  if (ids.gids.includes(s.gid)) return (s.mode & 0o020) !== 0 && (s.mode & 0o010) !== 0;
  return (s.mode & 0o002) !== 0 && (s.mode & 0o001) !== 0;
}

export async function run(argv: string[], io: Partial<Io> = {}): Promise<number> {
  const env = io.env ?? process.env;
  const systemctl = (a: string[]) => runSystemctl(a, env);
  const query = (verb: 'is-enabled' | 'is-active', unit: string) => systemctl([verb, unit]).out.split('\n')[0] ?? '';
  const out = io.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = io.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const uid = io.uid ?? process.getuid?.() ?? 0;
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        revert: { type: 'boolean' },
        passive: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (e) {
    err(`zmgate-takeover: ${(e as Error).message}`);
    err(USAGE);
    return EXIT.usage;
  }
  if (args.help) {
    out(USAGE);
    return EXIT.ok;
  }
  const revert = Boolean(args.revert || args.passive);
  if (uid !== 0) {
    err('zmgate-takeover: must be run as root (it stops and starts system services and edits the operator file)');
    return EXIT.refused;
  }

  const operatorFile = env.APP_CONFIG_FILE || DEFAULT_OPERATOR_FILE;
  let config;
  try {
    config = loadConfig({ env }).config;
  } catch (e) {
    err(`zmgate-takeover: ${(e as Error).message}`);
    return EXIT.refused;
  }
  const host = config.server.addr === '0.0.0.0' || config.server.addr === '::' ? '127.0.0.1' : config.server.addr;
  const scheme = config.server.tls.enabled ? 'https' : 'http';
  const health = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.server.port}/api/v3/server/health_check`;

  // ---- checks (nothing changed yet) ----
  const problems: string[] = [];
  if (!revert) {
    if (!(await healthy(health, 3000)))
      problems.push(
        `zmgate does not answer at ${health}: start it in passive mode first (systemctl start zmgate.service)`,
      );
    const user = systemctl(['show', '-p', 'User', '--value', 'zmgate.service']).out.split('\n')[0]?.trim() ?? '';
    let ids;
    try {
      ids = userIds(user, env);
    } catch {
      problems.push(`the service user ${user} of zmgate.service does not exist`);
    }
    if (ids) {
      const events = config.zoneminder.dir_events;
      try {
        if (!canWrite(events, ids))
          problems.push(`the service user ${user || 'root'} cannot write the events directory ${events}`);
      } catch {
        problems.push(`the events directory ${events} does not exist`);
      }
      const socks = config.zoneminder.path_socks;
      if (existsSync(socks)) {
        const gid = statSync(socks).gid;
        if (ids.uid !== 0 && !ids.gids.includes(gid))
          problems.push(
            `the service user ${user} is not in the stream-socket group (gid ${gid} of ${socks}); add it with usermod -aG`,
          );
      }
    }
  }
  if (problems.length) {
    for (const p of problems) err(`zmgate-takeover: check failed: ${p}`);
    return EXIT.refused;
  }

  // ---- the plan ----
  const original = existsSync(operatorFile) ? readFileSync(operatorFile, 'utf8') : null;
  const wanted = !revert;
  const flagSet = fileEnabled(original ?? '') === wanted;
  const zmEnabled = query('is-enabled', 'zoneminder.service') === 'enabled';
  const zmActive = query('is-active', 'zoneminder.service') === 'active';
  interface Step {
    say: string;
    skip: boolean;
    run: () => void;
    undo?: () => void;
  }
  const sc =
    (...a: string[]) =>
    () => {
      const r = systemctl(a);
      if (!r.ok) throw new StepFailed(`systemctl ${a.join(' ')} failed${r.out ? `: ${r.out.split('\n')[0]}` : ''}`);
    };
  const writeFlag = (value: boolean) => () => {
    mkdirSync(dirname(operatorFile), { recursive: true });
    writeFileSync(operatorFile, setDaemonEnabled(original ?? '', value), { mode: 0o640 });
  };
  const restoreFile = () => {
    if (original === null) writeFileSync(operatorFile, '', { mode: 0o640 });
    else writeFileSync(operatorFile, original);
  };
  // Its undo is the restart after the flag is restored (below).
  const restartZmgate: Step = { say: 'restart zmgate.service', skip: flagSet, run: sc('restart', 'zmgate.service') };
  const steps: Step[] = revert
    ? [
        {
          say: `set daemon.enabled = false in ${operatorFile}`,
          skip: flagSet || fileEnabled(original ?? '') === undefined,
          run: writeFlag(false),
          undo: restoreFile,
        },
        restartZmgate,
        {
          say: 'enable zoneminder.service',
          skip: zmEnabled,
          run: sc('enable', 'zoneminder.service'),
          undo: sc('disable', 'zoneminder.service'),
        },
        {
          say: 'start zoneminder.service',
          skip: zmActive,
          run: sc('start', 'zoneminder.service'),
          undo: sc('stop', 'zoneminder.service'),
        },
      ]
    : [
        {
          say: 'disable zoneminder.service',
          skip: !zmEnabled,
          run: sc('disable', 'zoneminder.service'),
          undo: sc('enable', 'zoneminder.service'),
        },
        {
          say: 'stop zoneminder.service',
          skip: !zmActive,
          run: sc('stop', 'zoneminder.service'),
          undo: sc('start', 'zoneminder.service'),
        },
        { say: `set daemon.enabled = true in ${operatorFile}`, skip: flagSet, run: writeFlag(true), undo: restoreFile },
        restartZmgate,
      ];
  const todo = steps.filter((s) => !s.skip);
  out(
    revert
      ? 'Handing daemon supervision back to zoneminder.service:'
      : 'Taking over daemon supervision from zoneminder.service:',
  );
  for (const s of steps) out(`  ${s.skip ? '(done already) ' : ''}${s.say}`);
  if (todo.length === 0) {
    out(revert ? 'Already in passive mode; nothing to do.' : 'Already in takeover mode; nothing to do.');
    return EXIT.ok;
  }
  if (!args.yes) {
    const ask =
      io.confirm ??
      (async (q: string) => {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        try {
          return /^y(es)?$/i.test((await rl.question(q)).trim());
        } finally {
          rl.close();
        }
      });
    if (!(await ask('Proceed? [y/N] '))) {
      err('zmgate-takeover: not confirmed; nothing changed');
      return EXIT.refused;
    }
  }

  // ---- apply, undo on failure ----
  const done: Step[] = [];
  try {
    for (const s of todo) {
      out(`-> ${s.say}`);
      s.run();
      done.push(s);
      if (s === restartZmgate && !(await healthy(health, 30_000)))
        throw new StepFailed(`zmgate did not answer at ${health} after the restart`);
    }
  } catch (e) {
    err(`zmgate-takeover: ${(e as Error).message}; rolling back`);
    for (const s of done.reverse()) {
      out(`<- undo: ${s.say}`);
      try {
        s.undo?.();
      } catch (u) {
        err(`zmgate-takeover: undo of "${s.say}" failed: ${(u as Error).message}`);
      }
    }
    // With the flag restored, zmgate must run with it again (best effort).
    if (done.some((s) => s.undo === restoreFile) && todo.includes(restartZmgate)) {
      out('<- undo: restart zmgate.service');
      systemctl(['restart', 'zmgate.service']);
    }
    return EXIT.failure;
  }
  out(
    revert
      ? 'Done: zoneminder.service supervises the daemons (zmgate is passive).'
      : 'Done: zmgate supervises the daemons (takeover mode).',
  );
  return EXIT.ok;
}
