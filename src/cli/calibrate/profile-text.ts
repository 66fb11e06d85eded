import JSON5 from 'json5';
import type { LoopDetectionConfig } from '../../config/types.js';
import type { PeakKind } from './peaks.js';
import { THRESHOLD_RULES, type Calibration, type CalibrationChoice } from './calibration-rule.js';

const EVIDENCE: Readonly<Record<PeakKind, string>> = {
  repeat: 'identical calls in a row with identical outcomes',
  alternation: 'repeats of each side of an alternation without progress',
  poll: 'unchanged polls',
  failure: 'calls failing with the same error',
  unknownTool: 'calls of an unavailable tool',
  typedError: 'failures with one typed error',
};

/** Why a threshold has its value, in one line. */
export function evidenceLine(choice: CalibrationChoice, margin: number): string {
  const rule = THRESHOLD_RULES.find((r) => r.critical === choice.key || r.warning === choice.key)!;
  const critical = rule.critical === choice.key;
  const count = choice.peak?.count ?? 0;
  const sum = critical ? `${count} + 1 + margin ${margin} = ${count + 1 + margin}` : `${count} + 1 = ${count + 1}`;
  const peak = choice.peak
    ? `highest ${count} ${EVIDENCE[choice.peak.kind]} (${choice.peak.run}, call ${choice.peak.call}, ${choice.peak.tool}): ${sum}`
    : `none seen: ${sum}`;
  const floor =
    choice.floor === undefined
      ? ''
      : critical
        ? `; floor ${choice.floor} (${rule.floorReason})`
        : `; ${choice.floor}, the margin below the critical`;
  return `${peak}${floor}`;
}

/** A key, quoted when it is not an identifier (tool names may be anything). */
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON5.stringify(name));

/**
 * The JSON5 text of a calibrated profile: the OpenClaw-shaped config with one comment per
 * threshold saying which run and call its evidence came from, as `configFile` reads it.
 */
export function profileText(calibration: Calibration, header: readonly string[]): string {
  const { block, choices, margin } = calibration;
  const lines = header.map((line) => `// ${line}`);
  lines.push('{', '  tools: {', '    loopDetection: {');
  const indent = '      ';
  const comment = (choice: CalibrationChoice | undefined, at: string) =>
    choice ? [`${at}// ${evidenceLine(choice, margin)}`] : [];
  const globalChoice = (name: string) => choices.find((c) => c.key === name && c.tool === undefined);
  for (const [name, value] of Object.entries(block) as Array<[keyof LoopDetectionConfig, unknown]>) {
    if (name === 'byTool' || name === 'detectors') continue;
    lines.push(...comment(globalChoice(name), indent), `${indent}${key(name)}: ${JSON5.stringify(value)},`);
  }
  if (block.detectors) {
    const toggles = Object.entries(block.detectors).map(([name, on]) => `${name}: ${String(on)}`);
    lines.push(`${indent}detectors: { ${toggles.join(', ')} },`);
  }
  if (block.byTool) {
    lines.push(`${indent}byTool: {`);
    for (const [tool, thresholds] of Object.entries(block.byTool)) {
      lines.push(`${indent}  ${key(tool)}: {`);
      for (const [name, value] of Object.entries(thresholds)) {
        const choice = choices.find((c) => c.key === name && c.tool === tool);
        lines.push(...comment(choice, `${indent}    `), `${indent}    ${name}: ${String(value)},`);
      }
      lines.push(`${indent}  },`);
    }
    lines.push(`${indent}},`);
  }
  lines.push('    },', '  },', '}', '');
  return lines.join('\n');
}
