/**
 * Boards are shown frozen first, then the newest plan first, then by id, on
 * the site and in the text report alike (src/report/board-order.ts);
 * report.json keeps them by id.
 */
import { describe, expect, it } from 'vitest';
import { boardsInOrder } from '../../src/report/board-order.ts';
import type { Report } from '../../src/report/schema.ts';

const id = (n: number): string => `sha256:${String(n).repeat(64).slice(0, 64)}`;

function report(boards: { n: number; origin: 'frozen' | 'imported'; plans: string[] }[]): Report {
  return {
    boards: boards.map((b) => ({ board_id: id(b.n), key: { origin: b.origin } })),
    cohorts: boards.flatMap((b) => b.plans.map((created_at) => ({ board_id: id(b.n), plans: [{ created_at }] }))),
  } as unknown as Report;
}

describe('boardsInOrder', () => {
  it('puts frozen boards first, then the newest plan first, then the board id; the report is not changed', () => {
    const r = report([
      { n: 1, origin: 'imported', plans: ['2026-12-01T00:00:00Z'] },
      { n: 2, origin: 'frozen', plans: ['2026-09-14T10:00:00Z', '2026-10-05T10:00:00Z'] },
      { n: 3, origin: 'frozen', plans: ['2026-11-16T10:00:00Z'] },
      { n: 4, origin: 'frozen', plans: ['2026-11-16T10:00:00Z'] },
      { n: 5, origin: 'frozen', plans: [] },
      { n: 6, origin: 'imported', plans: ['2025-01-01T00:00:00Z'] },
    ]);
    const before = r.boards.map((b) => b.board_id);
    expect(boardsInOrder(r).map((b) => b.board_id)).toEqual([id(3), id(4), id(2), id(5), id(1), id(6)]);
    expect(r.boards.map((b) => b.board_id)).toEqual(before);
  });

  it('compares instants, not text (a fractional second is later than the whole second)', () => {
    const r = report([
      { n: 1, origin: 'frozen', plans: ['2026-11-16T10:00:00Z'] },
      { n: 2, origin: 'frozen', plans: ['2026-11-16T10:00:00.5Z'] },
    ]);
    expect(boardsInOrder(r).map((b) => b.board_id)).toEqual([id(2), id(1)]);
  });
});
