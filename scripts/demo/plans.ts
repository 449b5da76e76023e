/**
 * The demo's plans. Three monthly plans share the main board (same ledger,
 * environment, harness, budget and grader); the same baseline runs in each,
 * a little weaker every month (laboratory drift). The fourth plan restricts
 * the tool policy, so it sits on a board of its own, and is regraded.
 *
 * Verdicts on the main board, by design (skills against task hardness, see
 * simulate.ts): :mini improves with no regression (PASS); :coder-7b always
 * fails widget-0005, which the baseline always solves (REGRESSION); the May
 * :sage is the baseline's equal (NO_GAIN); mini under loop 3.2.0 misses one
 * grade on a headline task (NO_VERDICT); the October :sage improves (PASS).
 *
 * Every plan is black_box. The November plan carries a red team's
 * assessments (assessments.ts): by the demo's score card
 * (content/scorecard.json) mini's "strong" shows capped at "supported", the
 * October sage's "indicative" uncapped. They entered the bundle after a
 * report that counted it was retained (content/reports), as a new seal with
 * two files added and none changed (FORMAT.md 8: an addition, not a
 * rewrite), so the November story and NOTES.md stay as they were.
 *
 * Which bundles hold a time-stamp anchor, and why, is anchors.ts (FORMAT.md
 * 12); UNPUBLISHED_PLANS below are the plans frozen and never published that
 * only the freeze log shows (freeze-log.ts).
 */
import { NOVEMBER_ASSESSMENTS } from './assessments.ts';
import { BASE, CODER, MINI, MINI_LOOP_320, SAGE_MAY, SAGE_OCT } from './subjects.ts';
import type { FrozenPlanSpec, PlanSpec } from './spec.ts';

/** Notes prose per plan (the rest of NOTES.md is computed from the evidence). */
export interface PlanStory {
  intro: string;
  caveats: readonly string[];
}

/** A plan and its story. */
export type DemoPlan = PlanSpec & { story: PlanStory };

const COLLECTION_TIMEOUT = 'pytest collection timed out after 300 s while installing the task requirements';

/** The demo plans, in freeze order. */
export const DEMO_PLANS: readonly DemoPlan[] = [
  {
    dir: '2026-09-14-widget-bugs',
    title: 'widget-bugs bake-off, September 2026',
    createdAt: '2026-09-14T12:00:00Z',
    seed: 7,
    toolPolicy: 'standard',
    subjects: [
      { def: BASE, skill: 52 },
      { def: MINI, skill: 72 },
      { def: CODER, skill: 56 },
      { def: SAGE_MAY, skill: 47 },
    ],
    attempts: 3,
    grading: { errorRate: 0.08, errorReason: COLLECTION_TIMEOUT },
    grant: false,
    story: {
      intro: 'First monthly run of the widget-bugs ledger: the house baseline against three candidates, three attempts per task.',
      caveats: [
        'orbit does not expose per-request billing, so every `orbit/coder-7b-2026-07` cost is recorded as unavailable, never as zero.',
        'lumen/sage runs on our own hardware; its cost is not applicable.',
      ],
    },
  },
  {
    dir: '2026-10-05-widget-bugs',
    title: 'widget-bugs monthly, October 2026',
    createdAt: '2026-10-05T09:30:00Z',
    seed: 11,
    toolPolicy: 'standard',
    subjects: [
      { def: BASE, skill: 48 },
      { def: MINI, skill: 72 },
      { def: CODER, skill: 56 },
      { def: MINI_LOOP_320, skill: 74 },
    ],
    attempts: 3,
    invalidTasks: ['widget-0023'],
    grading: { errorRate: 0.08, errorReason: COLLECTION_TIMEOUT, missing: [{ subject: 3, task: 'widget-0009', index: 2 }] },
    grant: false,
    story: {
      intro: 'Second monthly run. This month also compares two agent releases on one model: `acme/mini-2026-08-01` under loop 3.1.0 and under loop 3.2.0.',
      caveats: [
        "widget-0023's upstream tag was force-pushed before the run; the harness's pre-flight check found the failing test already passing and reported every attempt on it as `invalid_case`.",
        'The grader crashed (out of memory) on one attempt and wrote no result for it. We did not re-run it: a missing grade counts as a grader failure.',
        'orbit costs are unavailable, as in September.',
      ],
    },
  },
  {
    dir: '2026-11-02-widget-bugs',
    title: 'widget-bugs monthly, November 2026',
    createdAt: '2026-11-02T14:00:00Z',
    seed: 13,
    toolPolicy: 'standard',
    subjects: [
      { def: BASE, skill: 45 },
      { def: MINI, skill: 72 },
      { def: CODER, skill: 56 },
      { def: SAGE_OCT, skill: 62 },
    ],
    attempts: 3,
    grading: { errorRate: 0.08, errorReason: COLLECTION_TIMEOUT },
    grant: true,
    story: {
      intro: 'Third monthly run. The `:sage` alias now resolves to lumen\'s October model; the spend grant issued for this plan is included as grant.json.',
      caveats: [
        'The baseline solved fewer headline tasks than in September and October with the same model and agent; we have not found the cause (laboratory drift).',
        'orbit costs are unavailable; lumen costs are not applicable.',
      ],
    },
    assessments: NOVEMBER_ASSESSMENTS,
  },
  {
    dir: '2026-11-16-widget-bugs-offline-tools',
    title: 'widget-bugs with network-less tools, November 2026',
    createdAt: '2026-11-16T10:00:00Z',
    seed: 17,
    toolPolicy: 'offline',
    subjects: [
      { def: BASE, skill: 47 },
      { def: MINI, skill: 70 },
      { def: CODER, skill: 54 },
      { def: SAGE_OCT, skill: 60 },
    ],
    attempts: 3,
    grading: {
      errorRate: 0,
      errorReason: 'pip could not reach https://pypi.example.com/simple/psycopg/ (the sandbox inherited the tool policy: network none)',
      erroredRepos: ['https://example.com/widgetco/widget-db.git'],
      falseFailures: 2,
      regrade: true,
    },
    grant: true,
    story: {
      intro: 'The same ledger with a stricter tool policy: no network and no `web_fetch` tool. Results are not comparable with the monthly runs, and the site keeps them on their own board.',
      caveats: [
        'Grader 1.2.0 inherited the tool policy and could not install the widget-db test requirements, so every widget-db result in generation 1 is an error. It also reused a pytest cache between runs, which failed two passing patches.',
        'Generation 2 (grader 1.2.1, vendored wheels, fresh cache per run) regrades every attempt; generation 1 is kept unchanged beside it.',
      ],
    },
  },
];

/**
 * Plans of the widget-bugs ledger that were frozen and never published (no
 * bundle): only the freeze log (content/history/freeze-log.jsonl) shows
 * them, so a reader sees the N behind the published plans (issue 30). Real
 * plans, frozen by the same code as the published ones, so their ids are
 * digests of real plan.json bytes; created_at between the published ones.
 */
export const UNPUBLISHED_PLANS: readonly FrozenPlanSpec[] = [
  {
    // Superseded three days later by the October 5 plan, which adds mini under loop 3.2.0.
    title: 'widget-bugs monthly, October 2026',
    createdAt: '2026-10-02T16:45:00Z',
    seed: 9,
    toolPolicy: 'standard',
    subjects: [
      { def: BASE, skill: 48 },
      { def: MINI, skill: 72 },
      { def: CODER, skill: 56 },
    ],
    attempts: 3,
  },
  {
    // A first offline plan with two attempts a task, a week before the one that was run and published.
    title: 'widget-bugs with network-less tools, November 2026',
    createdAt: '2026-11-09T11:20:00Z',
    seed: 15,
    toolPolicy: 'offline',
    subjects: [
      { def: BASE, skill: 47 },
      { def: MINI, skill: 70 },
      { def: CODER, skill: 54 },
      { def: SAGE_OCT, skill: 60 },
    ],
    attempts: 2,
  },
];
