/** True for an integer greater than zero (OpenClaw's `asPositiveInt` acceptance rule). */
export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
