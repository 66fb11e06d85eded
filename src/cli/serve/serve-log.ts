import type { EngineLogger } from '../../util/logger.js';
import { printable } from '../terminal-text.js';

/** How much `serve` logs, least first. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The service's log: one line per message on stderr, `<ISO time> <level> <message>`, from
 * `level` up (the engine's, the OpenTelemetry SDK's and the service's own lines alike).
 */
export class ServeLog implements EngineLogger {
  private readonly rank: number;

  constructor(
    private readonly write: (line: string) => void,
    level: LogLevel,
    private readonly clock: () => number = Date.now,
  ) {
    this.rank = LOG_LEVELS.indexOf(level);
  }

  error(message: string): void {
    this.line(0, 'error', message);
  }

  warn(message: string): void {
    this.line(1, 'warn', message);
  }

  info(message: string): void {
    this.line(2, 'info', message);
  }

  debug(message: string): void {
    this.line(3, 'debug', message);
  }

  /** The OpenTelemetry `DiagLogger` shape (its `verbose` is our `debug`). */
  verbose(message: string): void {
    this.debug(message);
  }

  private line(rank: number, level: LogLevel, message: string): void {
    if (rank > this.rank) return;
    this.write(`${new Date(this.clock()).toISOString()} ${level} ${printable(message)}\n`);
  }
}
