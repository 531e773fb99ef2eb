// The one place that knows which logging library is used (bunyan, JSON lines on stdout).
import bunyan from 'bunyan';

export type Logger = bunyan;

export interface LoggerOptions {
  level?: bunyan.LogLevel;
  /** Where records go; defaults to stdout. Tests pass a stream to read the log back. */
  stream?: NodeJS.WritableStream;
}

/** Replaces the value of any `token` query parameter so bearer tokens never reach the log. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[REDACTED]');
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return bunyan.createLogger({
    name: 'zmgate',
    level: options.level ?? (process.env.ZMGATE_LOG_LEVEL as bunyan.LogLevel | undefined) ?? 'info',
    streams: [{ stream: options.stream ?? process.stdout }],
    serializers: {
      err: bunyan.stdSerializers.err,
    },
  });
}
