/** A failure the scripts explain in one line instead of printing a stack trace. */
export class ScriptError extends Error {}
