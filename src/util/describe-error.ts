/** An error's stack (or name and message), for log lines; never throws. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  try {
    return String(error);
  } catch {
    return 'unprintable error';
  }
}
