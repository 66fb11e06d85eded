/** A call admitted but not finished yet (an earlier member of the same batch): a projected veto. */
export interface InFlightCall {
  readonly toolName: string;
  readonly argsHash: string;
}
