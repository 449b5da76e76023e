/**
 * Test helper: a command line split as a POSIX shell reads it (XCU 2.3 token
 * recognition, 2.2 quoting, 2.6 expansions), without running anything. The
 * result keeps what matters to "is this value one word, exactly its bytes":
 * where each word starts and ends, its literal text after quote removal, and
 * every part a shell would expand (a parameter, a command substitution, a
 * glob character, a tilde, or history's "!"), marked as such instead of being
 * read as text. Operators (`|`, `&&`, `;`, a newline, redirections) are
 * tokens of their own; comments are dropped, as a shell drops them.
 *
 * Not a whole shell grammar: reserved words (while, do, done) stay words, and
 * `$((`, here-documents and `${...}` with operators are refused (thrown), so a
 * command the site prints that needs them fails the test instead of being
 * read wrongly.
 */

/** One part of a word: text a shell takes literally, or something it expands. */
export type Part =
  | { lit: string }
  | { param: string; quoted: boolean }
  | { subst: Script; quoted: boolean }
  | { special: string };

/** A word: its parts (adjacent literal text merged), and its source text. */
export interface Word {
  parts: Part[];
  raw: string;
}

/** A token: a word, or an operator ("|", "&&", ";", "\n", "<", ">>", ...). */
export type Token = { word: Word } | { op: string };

/** A parsed command line: simple commands (their words) and the operators between them. */
export type Script = (Part[][] | string)[];

const OPERATORS = ['&&', '||', ';;', '<<', '>>', '<&', '>&', '<>', '>|', '|', '&', ';', '<', '>', '(', ')', '\n'];

class Reader {
  i = 0;
  constructor(readonly text: string) {}
  peek(n = 0): string {
    return this.text[this.i + n] ?? '';
  }
  done(): boolean {
    return this.i >= this.text.length;
  }
}

function push(parts: Part[], part: Part): void {
  const last = parts.at(-1);
  if ('lit' in part && last !== undefined && 'lit' in last) last.lit += part.lit;
  else parts.push(part);
}

/** `$...` at the reader (after the "$"): a parameter or a command substitution. */
function dollar(r: Reader, quoted: boolean): Part {
  const c = r.peek();
  if (c === '(') {
    if (r.peek(1) === '(') throw new Error('arithmetic expansion $(( is not supported');
    r.i++;
    const tokens = tokenize(r, ')');
    return { subst: scriptOf(tokens), quoted };
  }
  if (c === '{') {
    const end = r.text.indexOf('}', r.i);
    if (end < 0) throw new Error('unterminated ${');
    const name = r.text.slice(r.i + 1, end);
    if (!/^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/.test(name)) throw new Error(`\${${name}} is not supported`);
    r.i = end + 1;
    return { param: name, quoted };
  }
  const name = /^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(r.text.slice(r.i))?.[1];
  if (name === undefined) return { lit: '$' };
  r.i += name.length;
  return { param: name, quoted };
}

/** The rest of a double-quoted string (after the opening quote). */
function doubleQuoted(r: Reader, parts: Part[]): void {
  for (;;) {
    if (r.done()) throw new Error('unterminated double quote');
    const c = r.text[r.i++]!;
    if (c === '"') return;
    if (c === '\\') {
      const next = r.peek();
      if (next === '$' || next === '`' || next === '"' || next === '\\') {
        push(parts, { lit: next });
        r.i++;
      } else if (next === '\n') r.i++;
      else push(parts, { lit: '\\' });
    } else if (c === '$') push(parts, dollar(r, true));
    else if (c === '`') throw new Error('backquote substitution is not supported');
    // bash's history expansion reads "!" inside double quotes too (an interactive shell).
    else if (c === '!') push(parts, { special: '!' });
    else push(parts, { lit: c });
  }
}

/** Tokens up to the end of the text, or up to `until` (a closing ")" of a substitution, consumed). */
function tokenize(r: Reader, until?: ')'): Token[] {
  const tokens: Token[] = [];
  let parts: Part[] | null = null;
  let start = 0;
  const end = () => {
    if (parts !== null) tokens.push({ word: { parts: normalize(parts), raw: r.text.slice(start, r.i) } });
    parts = null;
  };
  for (;;) {
    if (r.done()) {
      if (until !== undefined) throw new Error('unterminated $(');
      end();
      return tokens;
    }
    const c = r.peek();
    if (until !== undefined && c === ')' ) {
      end();
      r.i++;
      return tokens;
    }
    if (c === ' ' || c === '\t') {
      end();
      r.i++;
      continue;
    }
    if (c === '#' && parts === null) {
      while (!r.done() && r.peek() !== '\n') r.i++;
      continue;
    }
    const op = OPERATORS.find((o) => r.text.startsWith(o, r.i));
    if (op !== undefined) {
      end();
      if (op === '<<') throw new Error('here-documents are not supported');
      tokens.push({ op });
      r.i += op.length;
      continue;
    }
    if (parts === null) {
      parts = [];
      start = r.i;
    }
    const word: Part[] = parts;
    r.i++;
    if (c === '\\') {
      if (r.peek() === '\n') r.i++;
      else if (!r.done()) push(word, { lit: r.text[r.i++]! });
    } else if (c === "'") {
      const close = r.text.indexOf("'", r.i);
      if (close < 0) throw new Error('unterminated single quote');
      push(word, { lit: r.text.slice(r.i, close) });
      r.i = close + 1;
    } else if (c === '"') {
      // An empty "" is still a word.
      push(word, { lit: '' });
      doubleQuoted(r, word);
    } else if (c === '$') push(word, dollar(r, false));
    else if (c === '`') throw new Error('backquote substitution is not supported');
    else if ('*?[]{}!'.includes(c) || (c === '~' && word.length === 0)) push(word, { special: c });
    else push(word, { lit: c });
  }
}

/** Adjacent literal text merged; an empty literal dropped unless it is the whole word. */
function normalize(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) push(out, 'lit' in p ? { lit: p.lit } : p);
  const kept = out.filter((p) => !('lit' in p) || p.lit !== '');
  return kept.length === 0 ? [{ lit: '' }] : kept;
}

/** Tokens as a script: each run of words one simple command, operators between them; blank lines and edges trimmed. */
function scriptOf(tokens: readonly Token[]): Script {
  const script: Script = [];
  let words: Part[][] | null = null;
  for (const t of tokens) {
    if ('word' in t) {
      (words ??= []).push(t.word.parts);
      continue;
    }
    if (words !== null) script.push(words);
    words = null;
    if (t.op === '\n' && (script.length === 0 || script.at(-1) === '\n')) continue;
    script.push(t.op);
  }
  if (words !== null) script.push(words);
  while (script.at(-1) === '\n') script.pop();
  return script;
}

/** A command line as a shell reads it (see the module comment); throws for what it does not support. */
export function parseShell(text: string): Script {
  return scriptOf(tokenize(new Reader(text)));
}

/** Every word of a command line with its source text, in order (substitutions not entered). */
export function wordsOf(text: string): Word[] {
  return tokenize(new Reader(text)).flatMap((t) => ('word' in t ? [t.word] : []));
}

/** A word that is only literal text: that text; otherwise null. */
export function literal(parts: readonly Part[]): string | null {
  return parts.length === 1 && 'lit' in parts[0]! ? parts[0].lit : null;
}
