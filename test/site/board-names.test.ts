/** Board titles (names before hashes) and the leaderboard's layout: src/site/views/board-names.ts. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report, ReportBoard } from '../../src/report/schema.ts';
import { boardsInOrder } from '../../src/report/board-order.ts';
import { boardTitle, boardTitleParts, leaderboardLayout } from '../../src/site/views/board-names.ts';

const demo = JSON.parse(readFileSync(new URL('../golden/demo-report.json', import.meta.url), 'utf8')) as Report;
const d = (n: number): string => `sha256:${n.toString(16).padStart(64, '0')}`;

type Key = ReportBoard['key'];
let next = 1;
function board(name: string, change: (k: Key) => void = () => {}, cohorts = 2): ReportBoard {
  const key: Key = {
    ledger_digest: d(1000),
    environment: { tool_policy: d(2000), wiki: [], isolation: 'container', session_topology: 'single-session' },
    harness: { name: 'h', version: '1.0.0', commit: 'abcdef0123456789abcdef0123456789abcdef01' },
    budget: { currency: 'USD', per_attempt_micros: 500000, timeout_seconds: 600 },
    grading: { id: 'oracle', version: '1.0', executable: d(3000) },
    origin: 'frozen',
  };
  change(key);
  const id = next++;
  return { board_id: d(id), key, ledger: { name, digest: key.ledger_digest, headline_tasks: [], watch_list_tasks: [], public_tasks: [] }, cohorts: Array.from({ length: cohorts }, (_, i) => d(id * 100 + i)) } as unknown as ReportBoard;
}

describe('boardTitle on the demo report', () => {
  it('the two widget-bugs boards are told apart by tool policy and grader version, with no hash of 12+ digits', () => {
    const titles = demo.boards.map((b) => boardTitle(demo, b));
    const byId = Object.fromEntries(demo.boards.map((b, i) => [b.board_id.slice(7, 19), titles[i]]));
    expect(byId).toEqual({
      a7bdcfaf9741: 'widget-bugs · tool policy 3ac3b860 · grader 1.2.1',
      c895cd60f302: 'widget-bugs · tool policy 4ac9ce42 · grader 1.2.0',
    });
    for (const t of titles) expect(t).not.toMatch(/[0-9a-f]{12}/);
  });
});

describe('boardTitle on synthetic boards', () => {
  it('a board alone on its ledger name is the name', () => {
    const a = board('alpha');
    const b = board('beta', (k) => (k.harness.version = '2'));
    expect(boardTitle({ boards: [a, b] }, a)).toBe('alpha');
    expect(boardTitle({ boards: [a, b] }, b)).toBe('beta');
  });

  it('names every component that differs on the same ledger, in a fixed order', () => {
    const a = board('L');
    const b = board('L', (k) => {
      k.grading.version = '1.1';
      k.grading.executable = d(3001);
      k.origin = 'imported';
      k.budget = null;
    });
    expect(boardTitle({ boards: [a, b] }, a)).toBe('L · frozen · budget USD 0.50 per attempt, 600 s · grader 1.0');
    expect(boardTitle({ boards: [a, b] }, b)).toBe('L · imported · no budget · grader 1.1');
  });

  it('harness and grader: name and version when they differ, else the commit or the executable', () => {
    const a = board('L');
    const b = board('L', (k) => {
      k.harness.commit = '1234567890abcdef1234567890abcdef12345678';
      k.grading.executable = d(3002);
    });
    expect(boardTitleParts([a, b], b)).toEqual(['L', 'harness commit 12345678', 'grader executable 00000000']);
    const c = board('L', (k) => (k.grading.id = 'judge'));
    expect(boardTitleParts([a, c], c)).toEqual(['L', 'grader judge']);
  });

  it('environment components: tool policy, wiki, isolation, topology', () => {
    const a = board('L');
    const b = board('L', (k) => {
      k.environment.tool_policy = d(0xabcdef12);
      k.environment.wiki = [{ path: 'w.md', sha256: d(0x12345678) }, { path: 'x.md', sha256: d(5) }];
      k.environment.isolation = 'host';
      k.environment.session_topology = 'multi-session';
    });
    expect(boardTitleParts([a, b], b)).toEqual(['L', 'tool policy 00000000', 'wiki 00000000 +1', 'isolation host', 'topology multi-session']);
    expect(boardTitleParts([a, b], a)).toEqual(['L', 'tool policy 00000000', 'no wiki', 'isolation container', 'topology single-session']);
  });

  it('boards on other ledgers of the same name: a readable difference first, the ledger digest only when nothing else differs', () => {
    const a = board('pop', (k) => (k.ledger_digest = d(0xaaaa1111)));
    const b = board('pop', (k) => {
      k.ledger_digest = d(0xbbbb2222);
      k.harness.version = '2.0.0+g614f5bb29';
      k.grading.version = '2.0.0+g614f5bb29';
    });
    const c = board('pop', (k) => (k.ledger_digest = `sha256:ab12cd34${'0'.repeat(56)}`));
    const boards = [a, b, c];
    expect(boardTitle({ boards }, b)).toBe('pop · harness h 2.0.0+g614f5bb29');
    expect(boardTitle({ boards }, c)).toBe('pop · ledger ab12cd34');
    expect(boardTitle({ boards }, a)).toBe('pop · ledger 00000000 · harness h 1.0.0');
  });

  it('evidence text in a title is shown with invisible characters marked and long values cut', () => {
    const a = board('led\u200bger');
    const b = board('led\u200bger', (k) => (k.harness.version = 'v'.repeat(100)));
    const parts = boardTitleParts([a, b], b);
    expect(parts[0]).toBe('led⟨U+200B⟩ger');
    expect(parts[1]!.length).toBeLessThan(100);
  });

  it('every title on a ledger differs when the keys differ in a named component', () => {
    const boards = [board('L'), board('L', (k) => (k.harness.version = '2')), board('L', (k) => (k.grading.version = '2')), board('L', (k) => (k.origin = 'imported'))];
    const titles = boards.map((b) => boardTitle({ boards }, b));
    expect(new Set(titles).size).toBe(boards.length);
  });
});

describe('leaderboardLayout', () => {
  it('frozen boards get sections; imported single-cohort boards become rows of one table; order is kept', () => {
    const f1 = board('a');
    const i1 = board('b', (k) => (k.origin = 'imported'), 1);
    const i2 = board('c', (k) => (k.origin = 'imported'), 3);
    const i3 = board('d', (k) => (k.origin = 'imported'), 1);
    const f2 = board('e');
    const layout = leaderboardLayout([f1, f2, i1, i2, i3]);
    expect(layout.frozen).toEqual([f1, f2]);
    expect(layout.imported).toEqual([i2]);
    expect(layout.runs).toEqual([i1, i3]);
  });

  it('on the demo report: both frozen boards, newest evidence first (boardsInOrder)', () => {
    const layout = leaderboardLayout(boardsInOrder(demo));
    expect(layout.frozen.map((b) => boardTitle(demo, b))).toEqual(['widget-bugs · tool policy 3ac3b860 · grader 1.2.1', 'widget-bugs · tool policy 4ac9ce42 · grader 1.2.0']);
    expect(layout.runs).toEqual([]);
  });
});
