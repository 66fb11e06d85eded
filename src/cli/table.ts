import { printable } from './terminal-text.js';

/**
 * Renders rows as a plain-text table; column `i` is right-aligned when `right[i]` is true. Cells
 * are shown {@link printable}: a cell from an input cannot drive the terminal or break a row.
 */
export function renderTable(
  headers: readonly string[],
  givenRows: readonly (readonly string[])[],
  right: readonly boolean[] = [],
): string {
  const rows = givenRows.map((row) => row.map(printable));
  // A loop, not a spread into Math.max: a report may have more rows than a call has room for arguments.
  const widths = headers.map((header) => header.length);
  for (const row of rows)
    for (let column = 0; column < widths.length; column += 1)
      widths[column] = Math.max(widths[column], (row[column] ?? '').length);
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (right[column] ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n') + '\n';
}
