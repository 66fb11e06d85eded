/** Error outcomes hash under this prefix (see `hashToolOutcome`): every error is a no-progress outcome. */
const ERROR_RESULT_PREFIX = 'error:';

/** Whether an outcome made no progress: an error, or one its tool reported as no progress. */
export function isNoProgressOutcome(resultHash: string, noProgress: true | undefined): boolean {
  return noProgress === true || resultHash.startsWith(ERROR_RESULT_PREFIX);
}
