/**
 * Where a character offset of decoded JSON text is, for the careful parser's
 * results: its 1-based line and column (in UTF-16 code units), and, for a
 * string over the size limit, the member names and array indices down to it.
 * Run once per result, never inside the parse.
 */

/** 1-based lines and columns of ascending character offsets, in one pass over the text. */
export function positions(text: string, offsets: readonly number[]): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let line = 1;
  let lineStart = 0;
  let next = text.indexOf('\n');
  for (const offset of offsets) {
    while (next !== -1 && next < offset) {
      line++;
      lineStart = next + 1;
      next = text.indexOf('\n', next + 1);
    }
    out.push({ line, column: offset - lineStart + 1 });
  }
  return out;
}

/** 1-based line and column (in UTF-16 code units) of a character offset. */
export function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Where the string starting at `offset` sits: the member names and array
 * indices down to it, and whether it is a member name. Only called after the
 * careful parser failed at that string, so the text before it is valid JSON
 * (no need to check anything here).
 */
export function pathAt(text: string, offset: number): { path: (string | number)[]; memberName: boolean } {
  // One frame per open container: its key or index so far, and whether a member name comes next.
  const frames: { key: string | number; expectName: boolean; isArray: boolean }[] = [];
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === 34) {
      const end = stringEnd(text, i);
      if (top && !top.isArray && top.expectName) {
        top.key = JSON.parse(text.slice(i, end + 1)) as string;
        top.expectName = false;
      }
      i = end;
    } else if (c === 123) frames.push({ key: '', expectName: true, isArray: false });
    else if (c === 91) frames.push({ key: 0, expectName: false, isArray: true });
    else if (c === 125 || c === 93) frames.pop();
    else if (c === 44 && top) {
      if (top.isArray) top.key = (top.key as number) + 1;
      else top.expectName = true;
    }
  }
  const top = frames[frames.length - 1];
  const memberName = top !== undefined && !top.isArray && top.expectName;
  const path = (memberName ? frames.slice(0, -1) : frames).map((f) => f.key);
  return { path, memberName };
}

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34 || Number.isNaN(c)) return i;
  }
}
