// A throwaway redis-server (Debian's) on a free loopback port, no persistence, for the
// multi-server push tests. Stopped by the test.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  restart(): Promise<void>;
  /** One redis-cli command against it; resolves with its output, trimmed. */
  cli(...args: string[]): Promise<string>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function spawnRedis(port: number): Promise<ChildProcess> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise<ChildProcess>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (/Ready to accept connections/.test(out)) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    child.once('error', reject);
  });
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child = await spawnRedis(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
    async restart() {
      child = await spawnRedis(port);
    },
    async cli(...args: string[]) {
      const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
      return stdout.trim();
    },
  };
}
