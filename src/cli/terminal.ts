/**
 * Terminal output helpers: colour only on a TTY (and never with NO_COLOR),
 * and evidence text made safe to print (no control or bidi characters can
 * reach the terminal from a bundle).
 */

/** Whether to colour a stream: a TTY, NO_COLOR unset, TERM not "dumb"; FORCE_COLOR=1 forces it. */
export function useColour(stream: NodeJS.WriteStream): boolean {
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  return stream.isTTY === true && process.env.TERM !== 'dumb';
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;

/** A painter: identity without colour. */
export type Paint = (style: keyof typeof CODES, text: string) => string;

/** Returns a painter for the stream. */
export function painter(colour: boolean): Paint {
  return colour ? (style, text) => `\u001b[${CODES[style]}m${text}\u001b[0m` : (_style, text) => text;
}

/** Replaces C0/C1 controls, DEL and bidi overrides in untrusted text with visible \u escapes. */
export function terminalSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
