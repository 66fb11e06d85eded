#!/usr/bin/env node
/** The `tool-loop-guard` bin (see `cli.ts`; importable code lives there, this file only runs it). */
import { main } from './cli.js';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
