/**
 * `--pass-threshold N`, as every importer that takes it reads it: a plain
 * decimal number (no hex, no `Infinity`, at most 40 characters), so the text
 * means one number everywhere and can be written back into a re-run command.
 * A format may accept an exponent (HELM writes its grader id with
 * `String(n)`, which uses one for very small numbers) or refuse a sign
 * (Terminal-Bench rewards are never negative).
 */
import { ImportError } from './errors.ts';

export function parsePassThreshold(text: string, accept: { exponent?: boolean; sign?: boolean } = {}): number {
  const sign = accept.sign === false ? '' : '-?';
  const exponent = accept.exponent === true ? '(?:[eE][+-]?\\d+)?' : '';
  if (text.length > 40 || !new RegExp(`^${sign}(?:\\d+(?:\\.\\d*)?|\\.\\d+)${exponent}$`).test(text)) {
    throw new ImportError(`--pass-threshold must be a decimal number, not ${JSON.stringify(text.slice(0, 40))}`);
  }
  const n = Number(text);
  if (!Number.isFinite(n)) throw new ImportError(`--pass-threshold must be a finite number, not ${JSON.stringify(text.slice(0, 40))}`);
  return n;
}
