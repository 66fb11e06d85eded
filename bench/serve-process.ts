/** The `tool-loop-guard` CLI as this tree builds it for the bench: `serve.ts` runs `serve` through it. */
import { main } from '../src/cli/cli.js';

process.exitCode = await main(process.argv.slice(2));
