import { printable } from './terminal-text.js';

/** Where the CLI writes. Tests pass their own; the bin passes the process streams. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Progress is shown only when stderr is a terminal. */
  readonly stderrIsTTY: boolean;
}

/** The process's streams. */
export const processIo: CliIo = {
  stdout: (text) => {
    process.stdout.write(text);
  },
  stderr: (text) => {
    process.stderr.write(text);
  },
  get stderrIsTTY() {
    return process.stderr.isTTY === true;
  },
};

/** A one-line progress indicator on stderr, redrawn at most every 100 ms; silent unless a TTY. */
export class Progress {
  private last = 0;
  private shown = false;

  constructor(private readonly io: CliIo) {}

  update(text: () => string): void {
    if (!this.io.stderrIsTTY) return;
    const now = Date.now();
    if (now - this.last < 100) return;
    this.last = now;
    this.shown = true;
    this.io.stderr(`\r\x1b[K${printable(text())}`);
  }

  /** Clears the line (call before printing anything else to stderr). */
  clear(): void {
    if (!this.shown) return;
    this.shown = false;
    this.io.stderr('\r\x1b[K');
  }
}
