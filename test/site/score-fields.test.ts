/**
 * A transcript score field is a focusable scroll region exactly when it is
 * long (more than FIELD_SCROLL_CHARS characters) or many-lined (more than
 * FIELD_SCROLL_LINES lines): src/site/views/score-fields.ts, issue 29 item 4.
 */
import { describe, expect, it } from 'vitest';
import { FIELD_SCROLL_CHARS, FIELD_SCROLL_LINES, fieldScrolls } from '../../src/site/views/score-fields.ts';

describe('fieldScrolls', () => {
  it('is false up to 80 characters on one line and true from 81', () => {
    expect(FIELD_SCROLL_CHARS).toBe(80);
    expect(fieldScrolls('')).toBe(false);
    expect(fieldScrolls('C')).toBe(false);
    expect(fieldScrolls('x'.repeat(80))).toBe(false);
    expect(fieldScrolls('x'.repeat(81))).toBe(true);
    expect(fieldScrolls('é'.repeat(81))).toBe(true);
  });

  it('is false up to 8 lines and true from 9, however short the lines', () => {
    expect(FIELD_SCROLL_LINES).toBe(8);
    expect(fieldScrolls(Array.from({ length: 8 }, () => 'a').join('\n'))).toBe(false);
    expect(fieldScrolls(Array.from({ length: 9 }, () => 'a').join('\n'))).toBe(true);
    expect(fieldScrolls('\n'.repeat(7))).toBe(false);
    expect(fieldScrolls('\n'.repeat(8))).toBe(true);
  });
});
