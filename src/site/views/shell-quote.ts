/**
 * The one way a value becomes a word of a command a reader is asked to copy
 * (the site's command blocks, the CLI's hints): POSIX shell quoting. A value
 * made only of characters no POSIX shell treats specially (letters, digits and
 * `._/:@%+=,-`) is written as it is; anything else is put in single quotes,
 * inside which a POSIX shell (sh, dash, bash, zsh, ksh) takes every character
 * literally (newlines too), with each `'` of the value written as `'\''`. So a digest, a URL,
 * a path, a jq filter or a flag value from evidence or config is always one
 * word, exactly its bytes: never a second command, an expansion or a glob.
 */

/**
 * Characters that are one literal word in every POSIX shell, as any word but a
 * command's first. No leading `=` (zsh expands `=name` to a command's path).
 */
const PLAIN = /^[A-Za-z0-9._/:@%+,-][A-Za-z0-9._/:@%+=,-]*$/;

/** A value as one POSIX shell word: as it is when plain, else single-quoted (the empty string is `''`). */
export function shellQuote(value: string): string {
  return PLAIN.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** Words as one command line: each quoted with shellQuote, joined by spaces. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
