/**
 * The logging surface the engine and config layers write to. The OTel layer passes a
 * `diag` component logger; the CLI passes a console-backed one. Defaults to silence.
 */
export interface EngineLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything. */
export const silentLogger: EngineLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
