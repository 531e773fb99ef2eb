// ffmpeg/ffprobe as child processes, for the few stills the native core cannot make yet
// (a frame out of a recording, a rotated JPEG). Bounded: at most `maxConcurrent` processes run
// at once and the rest wait in a queue (a page of 50 thumbnails never forks 50 ffmpegs); each
// process is killed after `timeoutMs`; output beyond `maxOutputBytes` kills it too.
import { spawn } from 'node:child_process';
import { ServiceUnavailableError } from '../errors.js';

export interface FfmpegOptions {
  ffmpeg: string;
  ffprobe: string;
  maxConcurrent: number;
  /** Jobs allowed to wait for a slot; beyond that a request gets 503 at once. */
  maxQueued: number;
  timeoutMs: number;
  maxOutputBytes: number;
}

export const DEFAULT_FFMPEG_OPTIONS: FfmpegOptions = {
  ffmpeg: 'ffmpeg',
  ffprobe: 'ffprobe',
  maxConcurrent: 3,
  maxQueued: 200,
  timeoutMs: 10_000,
  maxOutputBytes: 16 << 20,
};

/** A failed run; the message is for the log only (it may name paths). */
export class FfmpegError extends Error {
  constructor(
    message: string,
    readonly stderr = '',
  ) {
    super(message);
    this.name = 'FfmpegError';
  }
}

export class FfmpegRunner {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly options: FfmpegOptions = DEFAULT_FFMPEG_OPTIONS) {}

  /** Processes running now (for tests and diagnostics). */
  get running(): number {
    return this.active;
  }

  /**
   * Runs ffmpeg with `args`, feeding `input` on stdin (the args then read `pipe:0`); resolves
   * with stdout. `-v error` is prepended, and `-nostdin` when there is no input.
   */
  ffmpeg(args: string[], input?: Buffer): Promise<Buffer> {
    return this.run(this.options.ffmpeg, ['-v', 'error', ...(input ? [] : ['-nostdin']), ...args], input);
  }

  ffprobe(args: string[]): Promise<Buffer> {
    return this.run(this.options.ffprobe, ['-v', 'error', ...args]);
  }

  private async run(binary: string, args: string[], input?: Buffer): Promise<Buffer> {
    await this.slot();
    try {
      return await this.spawnOnce(binary, args, input);
    } finally {
      // The slot goes straight to the next waiter (active unchanged), else it is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  private slot(): Promise<void> {
    if (this.active < this.options.maxConcurrent) {
      this.active++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxQueued) {
      return Promise.reject(
        new ServiceUnavailableError('Too many image jobs waiting; try again shortly', [
          ['reason', 'media worker queue full'],
        ]),
      );
    }
    return new Promise((resolve) => this.waiting.push(() => resolve()));
  }

  private spawnOnce(binary: string, args: string[], input?: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn(binary, args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let outBytes = 0;
      let stderr = '';
      let failure: FfmpegError | null = null;
      const fail = (err: FfmpegError) => {
        failure ??= err;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(
        () => fail(new FfmpegError(`${binary} timed out after ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > this.options.maxOutputBytes)
          return fail(new FfmpegError(`${binary} output exceeds ${this.options.maxOutputBytes} bytes`));
        out.push(chunk);
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        if (stderr.length < 4096) stderr += chunk.toString();
      });
      let settled = false;
      const settle = (code: number | null, signal: NodeJS.Signals | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (failure) return reject(Object.assign(failure, { stderr: failure.stderr || stderr.trim() }));
        if (code !== 0) return reject(new FfmpegError(`${binary} exited with ${code ?? signal}`, stderr.trim()));
        resolve(Buffer.concat(out));
      };
      // A killed process settles at exit: a grandchild holding the pipes must not keep the slot.
      child.on('exit', (code, signal) => {
        if (failure) {
          child.stdout!.destroy();
          child.stderr!.destroy();
          settle(code, signal);
        }
      });
      child.on('close', settle);
      child.on('error', (err) => {
        fail(new FfmpegError(`${binary} could not be started: ${err.message}`));
        if (child.pid === undefined) settle(null, null); // never ran: no exit or close to wait for
      });
      if (input && child.stdin) {
        // ffmpeg may exit before reading everything (a bad JPEG); that shows up as its exit code.
        child.stdin.on('error', () => undefined);
        child.stdin.end(input);
      }
    });
  }
}
