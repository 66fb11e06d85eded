/** The JSON files the bench leaves behind (`.bench/*.json`), each stamped with when and on what Node. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `fields` to `file` (its directory made if missing) after the run's date and Node version. */
export function writeReport(file: string, fields: Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, ...fields }, null, 1));
}
