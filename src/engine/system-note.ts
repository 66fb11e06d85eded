/**
 * OpenClaw's note for the model on a call that drew a loop warning, appended to that call's
 * result after its outcome was recorded (so the note never changes the no-progress hashes).
 * `count` is the warning's count.
 */
export function toolLoopSystemNote(count: number): string {
  return `[System note: Tool-loop warning after ${count} repeated calls. Change your approach or stop if you are not making progress.]`;
}
