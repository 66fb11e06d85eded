/** A receiver that listens until closed. */
export interface Receiver {
  /** `host:port` it listens on (the port it got, for port 0). */
  readonly address: string;
  readonly port: number;
  /** Stops taking requests; resolves once those in progress are answered, or `graceMs` passed. */
  close(graceMs: number): Promise<void>;
}

/** How a server stops: once its requests are answered (calling `done`), or at once. */
export interface ServerStop {
  graceful(done: () => void): void;
  force(): void;
}

/** The {@link Receiver} of a server listening on `host` (IPv6 in brackets) and `port`. */
export function receiverOf(host: string, port: number, stop: ServerStop): Receiver {
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    address: `${shown}:${port}`,
    port,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          stop.force();
          resolve();
        }, graceMs);
        timer.unref();
        stop.graceful(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
