/**
 * A transcript page's score fields (scorer, value, answer, explanation;
 * src/pages/transcripts/[bundle]/[key].astro, issue 29): each is shown in a
 * box at most 20rem tall (public/tables.css `.score-field`) so one long
 * answer never makes a row thousands of pixels tall. A field that may not
 * fit that box on a phone is a scroll region a keyboard reaches
 * (tabindex="0", role="region" and a label); a short one is plain text,
 * never a tab stop. Decided from the text alone, so the same evidence gives
 * the same page.
 */

/** A field longer than this many characters is a focusable scroll region. */
export const FIELD_SCROLL_CHARS = 80;
/** A field of more lines than this is a focusable scroll region. */
export const FIELD_SCROLL_LINES = 8;

/** Whether a score field is shown as a focusable scroll region (long or many-lined) rather than as plain text. */
export function fieldScrolls(text: string): boolean {
  if (text.length > FIELD_SCROLL_CHARS) return true;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) if (++lines > FIELD_SCROLL_LINES) return true;
  return false;
}
