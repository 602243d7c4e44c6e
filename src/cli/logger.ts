import { pino, type Logger } from 'pino';
import type { Config } from '../config.ts';
import { createLogger } from '../server.ts';

/**
 * The server's logger: JSON lines (one object per event, for a log collector), or, for a person
 * at a terminal in development, pino-pretty's coloured lines. pino-pretty is a dev dependency and
 * runs in this thread (no transport worker): production never loads it.
 */
export async function createCliLogger(config: Config, terminal: boolean): Promise<Logger> {
  if (!wantsPrettyLogs(config, terminal)) return createLogger(config);
  try {
    const { default: pretty } = await import('pino-pretty');
    return pino(
      { level: config.logLevel },
      pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }),
    );
  } catch {
    process.stderr.write('petstore: pretty logs need pino-pretty (a dev dependency); logging JSON instead\n');
    return createLogger(config);
  }
}

/** LOG_FORMAT decides; unset, pretty only on a terminal in development. */
export function wantsPrettyLogs(config: Pick<Config, 'logFormat' | 'nodeEnv'>, terminal: boolean): boolean {
  return config.logFormat === undefined
    ? terminal && config.nodeEnv === 'development'
    : config.logFormat === 'pretty';
}
