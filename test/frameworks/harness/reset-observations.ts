/** Vitest global setup: each run starts a fresh .probe/acceptance-observed.md. */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export default function resetObservations(): void {
  rmSync(fileURLToPath(new URL('../.probe/acceptance-observed.md', import.meta.url)), { force: true });
}
