/**
 * The text of /methodology/ (src/pages/methodology.astro): what every term on
 * the site means, written once here. docs/analysis.md and docs/formulas.md
 * are not in the package (package.json "files"), so the page cannot render
 * them at build time; instead test/site/methodology.test.ts holds this text
 * to them: every class and verdict name, the constants (z, resamples, the
 * percentile ranks, the drift threshold) and the verdict order the docs state
 * appear here, and the constants are the ones the analysis uses. The
 * acceptance rule is not written here: the page renders the one in the
 * report's config. Plain text only (rendered through Astro's escaping).
 */
import { DRIFT_ALPHA } from '../../analysis/drift.ts';
import { BOOTSTRAP_RESAMPLES, Z95 } from '../../analysis/stats.ts';

/** Resamples of the paired bootstrap: the analysis's one constant (src/analysis/stats.ts), each delta carries its own. */
export { BOOTSTRAP_RESAMPLES };

/** One defined term: its stable anchor (#id on /methodology/), the term, and its definition as paragraphs. */
export interface Term {
  id: string;
  term: string;
  text: string[];
}

/** A section of the page. */
export interface MethodologySection {
  id: string;
  heading: string;
  terms: Term[];
}

/** The task classes, in the order the report counts them (FORMAT.md 7.4). */
export const CLASS_TERMS: readonly Term[] = [
  { id: 'class-IMPROVED', term: 'IMPROVED', text: ['The candidate resolved every one of its attempts on the task (pass) and the baseline none of its own (fail).'] },
  { id: 'class-REGRESSED', term: 'REGRESSED', text: ['The baseline resolved every attempt on the task (pass) and the candidate none (fail).'] },
  { id: 'class-UNCHANGED', term: 'UNCHANGED', text: ['Both sides have the same definite outcome: both pass, or both fail.'] },
  {
    id: 'class-UNCLEAR',
    term: 'UNCLEAR',
    text: ['Either side is mixed (some attempts resolved, some not) or incomplete on the task, so the task says nothing definite either way.'],
  },
];

/** The verdicts, in the order they are tried: the first that applies is the verdict. */
export const VERDICT_TERMS: readonly Term[] = [
  {
    id: 'verdict-REGRESSION',
    term: 'REGRESSION',
    text: ['Some headline task is REGRESSED. Tried first: a definite regression is news even when other tasks are incomplete, so the regression part of the acceptance rule is not configurable.'],
  },
  {
    id: 'verdict-NO_VERDICT',
    term: 'NO_VERDICT',
    text: [
      'No decision can be taken: some headline task is incomplete on either side (no attempt there, an empty slot a plan promised, or a completed attempt whose grade is missing or errored), or the board has no baseline or more than one, or the ledger has no headline tasks. A missing decision is never a pass, whatever the rate and the delta beside it say; the cohort page names the incomplete tasks.',
    ],
  },
  { id: 'verdict-PASS', term: 'PASS', text: ['No headline task regressed and the acceptance rule in force holds (below).'] },
  { id: 'verdict-NO_GAIN', term: 'NO_GAIN', text: ['Every headline task is complete and none regressed, but too few improved for the acceptance rule: no evidence of a gain.'] },
];

/** The whole page, section by section. */
export const METHODOLOGY: readonly MethodologySection[] = [
  {
    id: 'units',
    heading: 'Boards, cohorts and tasks',
    terms: [
      {
        id: 'board',
        term: 'Board',
        text: [
          'The attempts that can be compared: the same ledger (the task list, by its digest), environment (tool policy, wiki, isolation, session topology), harness (name, version, commit), budget, grader (id, version, executable) and origin (frozen or imported). A board id is the SHA-256 of the RFC 8785 form of that key. Cohorts on one board are ranked together; cohorts on different boards never are, and every such pair on a shared ledger is listed under Incompatibilities with the components that differ.',
        ],
      },
      {
        id: 'cohort',
        term: 'Cohort',
        text: [
          "One subject (a model and an agent's name and version) on one board: every attempt with that key, pooled across the bundles (plans) that ran it. Its id is the digest of the board key with the subject added. One row of a board's table is one cohort.",
        ],
      },
      {
        id: 'baseline',
        term: 'Baseline and candidates',
        text: ['The baseline is the cohort whose subject a plan gives the role baseline; every other cohort on the board is a candidate, judged against it.'],
      },
      {
        id: 'headline',
        term: 'Headline task',
        text: [
          'The tasks every verdict, delta and rank is taken over: in ledger order, the first holdout task of each cluster (cluster_id). Headline tasks were held out of what the agents could see, one per cluster so that near-duplicates count once.',
        ],
      },
      {
        id: 'watch-list',
        term: 'Watch list',
        text: ['The other holdout tasks of each cluster (the headline task\u2019s siblings): a leakage watch list, reported apart and never in the headline rate.'],
      },
      { id: 'public', term: 'Public tasks', text: ['Tasks that are not holdout: reported apart, never in the headline rate.'] },
      {
        id: 'imported',
        term: 'Imported evidence',
        text: [
          "Evidence converted after the run from another tool's log (an Inspect AI eval log): no frozen plan, no declared ceiling, labels not known before the run. It is checked for consistency, never for a freeze, and its boards are marked imported: an imported cohort never ranks against frozen evidence, because its board key differs by origin. The original log is published beside it, with the command that re-runs the import.",
        ],
      },
    ],
  },
  {
    id: 'numbers',
    heading: 'The numbers',
    terms: [
      {
        id: 'rate',
        term: 'Headline rate',
        text: [
          'Resolved attempts over graded attempts on the headline tasks, pooled over the cohort\u2019s plans ("82.4% (42/51)"). Every attempt there counts as graded: an attempt that did not complete, or whose grade is missing, counts and is not resolved (it fails closed).',
        ],
      },
      {
        id: 'wilson',
        term: 'Wilson interval',
        text: [
          `The 95% interval beside a rate ("[69.7, 90.4]", in percent): the Wilson score interval for s successes of n trials with z = ${Z95}, the 0.975 quantile of the standard normal. No trials, no interval; 0 successes give a lower bound of exactly 0, n of n an upper bound of exactly 1.`,
        ],
      },
      {
        id: 'delta',
        term: 'Delta',
        text: [
          "The candidate's headline rate minus the baseline's, in percentage points (\"+39.2\"), over the headline tasks both attempted.",
        ],
      },
      {
        id: 'bootstrap',
        term: 'Paired bootstrap interval',
        text: [
          `The 95% interval beside a delta ("[17.6, 62.7]"): ${BOOTSTRAP_RESAMPLES} resamples of the headline tasks with replacement, each task keeping its candidate and baseline attempts together (paired), the statistic recomputed on each; the interval is the nearest-rank 2.5th and 97.5th percentiles of the resamples (for ${BOOTSTRAP_RESAMPLES} resamples the 50th and 1950th smallest). The draws come from a generator (sfc32) seeded by the SHA-256 of a seed text naming the evidence and both cohorts, so anyone with the same evidence gets the same interval, bit for bit.`,
          'An interval that crosses 0 does not decide the verdict, and a delta far from 0 does not either: the verdict is taken task by task (below).',
        ],
      },
      {
        id: 'drift',
        term: 'Drift',
        text: [`The baseline's headline rate in each plan compared with the plan before it (two-proportion z-test); flagged when p < ${DRIFT_ALPHA}: the laboratory moved, not the candidates.`],
      },
      {
        id: 'regrade',
        term: 'Regraded',
        text: [
          'A later grading generation replaced the first one\u2019s verdicts on some attempts. The latest generation counts; the cohort page shows the outcomes it moved (fail -> pass, pass -> fail) and the verdicts under generation 1.',
        ],
      },
    ],
  },
  {
    id: 'classes',
    heading: 'Task classes',
    terms: [
      {
        id: 'side',
        term: 'A side on a task',
        text: [
          "On each headline task, each side (the candidate's attempts, the baseline's) is pass (every attempt resolved), fail (none), mixed, or incomplete: no attempt there, fewer attempts than a contributing plan promised (an unaccounted slot), or a completed attempt with a missing or errored grade. Each task is then exactly one of:",
        ],
      },
      ...CLASS_TERMS,
    ],
  },
  {
    id: 'verdicts',
    heading: 'Verdicts',
    terms: [
      { id: 'verdict', term: 'Verdict', text: ["One per candidate cohort, from its headline tasks' classes; the first of these that applies:"] },
      ...VERDICT_TERMS,
    ],
  },
  {
    id: 'money',
    heading: 'Cost',
    terms: [
      {
        id: 'cost',
        term: 'Cost',
        text: [
          'The sum of what the attempts report they cost, in the currency of the plan\u2019s budget, added as integers in millionths (micros) and shown in currency units ("USD 0.66"), rounded to the cent.',
        ],
      },
      {
        id: 'lower-bound',
        term: '\u2265 (a lower bound)',
        text: [
          'When some attempts report only part of their cost (partial) or none (unavailable), the total is what is known, marked as a lower bound (">= USD 2.22 (8 partial)"): the true cost is at least that. Unknown cost is never added as zero.',
        ],
      },
      { id: 'cost-unavailable', term: 'unavailable', text: ['No attempt of the cohort has a known cost, and some should have one: "unavailable (72)" counts the attempts whose cost is unknown. Not zero: nothing is known.'] },
      {
        id: 'cost-not-applicable',
        term: 'not applicable',
        text: ['Every attempt says cost does not apply to it (a local model, say): there is nothing to count, which is different both from unknown and from free.'],
      },
      { id: 'cost-zero', term: 'zero', text: ['An attempt that reports it cost nothing: counted as 0, and the total stays exact.'] },
      {
        id: 'budget',
        term: 'Budget',
        text: ['What a frozen plan declares before the run: a ceiling per attempt and in all, with a timeout. Imported evidence declares none.'],
      },
    ],
  },
  {
    id: 'ranks',
    heading: 'Ranks',
    terms: [
      {
        id: 'rank',
        term: 'Rank',
        text: [
          'The rank a board\u2019s table shows is a range of places (FORMAT.md 7.6): "1" when the evidence puts the cohort first, "2-4" when it could be anywhere from second to fourth. Cohorts whose order the evidence does not settle share a range; within it the rows follow the rank by rate (below), which by itself settles nothing.',
          'For every pair of cohorts on a board (the baseline included), an exact two-sided sign test over the headline tasks where both sides are complete: the tasks where one side\u2019s rate beats the other\u2019s are counted, ties drop out. Holm\u2019s step-down adjustment runs over all the board\u2019s pairs; when the adjusted p is below 0.05 the side with more tasks in its favour beats the other. A cohort\u2019s range is [1 + the cohorts that beat it, N - the cohorts it beats] on a board of N cohorts: "1-4" on a board of four means no pair could be told apart.',
          'A pair with every task on one side needs at least 6 tasks in one direction to reach p < 0.05 before the adjustment, which multiplies the smallest p by the number of pairs: a board with few headline tasks often shows one wide range. Reports retained before rank ranges existed show the rank by rate alone.',
        ],
      },
      {
        id: 'rank-by-rate',
        term: 'Rank by rate',
        text: [
          'Within a board, by headline rate, highest first, with competition ranking: equal rates share a rank and the next rank skips ("1224": 1, 2, 2, 4). Cohorts without a rate rank last. Rows of equal rank are ordered by cohort id, which is arbitrary but stable. It orders the rows and shows when hovering over a rank; it says nothing about whether two adjacent rates differ.',
        ],
      },
    ],
  },
  {
    id: 'checking',
    heading: 'What a stranger checks, and what stays trust',
    terms: [
      {
        id: 'rederived',
        term: 'Re-derived',
        text: [
          'verify.mjs (node verify.mjs <site>), `ledgerboard verify-site` and the re-derivation on /verify/ re-derive every id and digest, then verify every published bundle again by every rule of the format from the bytes this site publishes (imports re-run on their kept originals), re-run the append-only check against the published retained manifests, analyse the counted bundles with the config the report carries, and compare the report so made with report.json byte for byte; then the cohort files, leaderboard.csv, changes.json, the feed, the figures the pages print and every cohort\u2019s badge (/badges/). A difference names the member that differs.',
          'verify.mjs is this site\'s build of that same code, bundled into one file; `ledgerboard verify-site` is a stranger\'s own installed copy, which says which version re-derived the report.',
        ],
      },
      {
        id: 'format',
        term: 'FORMAT.md N',
        text: [
          'Where a page cites "FORMAT.md 7.1" or "FORMAT.md 10", it means that section of the evidence format this site was verified against: docs/format.md in the ledgerboard repository, and in every installed copy of the ledgerboard package (node_modules/ledgerboard/docs/format.md), at the version that built this site (report.json, generator.version).',
        ],
      },
      {
        id: 'anchors',
        term: 'Anchored freeze',
        text: [
          "A plan's created_at is the publisher's own clock: nothing stops a plan from being frozen after its first attempts were seen and back-dated. An anchor is an RFC 3161 time-stamp over the plan id, from an authority outside the publisher's control, kept in the bundle as anchors/<name>.tsr (FORMAT.md 12). The verifier checks each token's signature against the certificate it carries and its imprint against the plan id, without the network; the bundle's anchor time is the earliest time of the tokens that check.",
          'A plan page says "frozen <created_at>; anchored by <authority> at <time>, before the first attempt at <time>" when the anchor is strictly before the earliest started_at of the bundle\'s attempts: then the plan provably existed before anything ran. An anchor after the first attempt shows the plan existed then, not that it was frozen before it ran. A plan without one says "not anchored: the freeze time is the publisher\'s own clock". Whom to trust is the reader\'s choice: "(a pinned authority)" when the signer chains to a root certificate this site\'s config pins (timestamp_roots), "(an authority this site does not pin)" otherwise: the name is then only what the token says. An anchor shows when the plan existed, never that the attempts are honest.',
        ],
      },
      {
        id: 'freeze-log',
        term: 'Freeze log',
        text: [
          'ledgerboard freeze appends a line to the site\'s freeze log for every plan it freezes (its id, created_at, title, ledger and the digest of its anchor, if any). /freeze-log/ shows, per ledger, how many plans were frozen, how many a bundle of this report publishes, and which were frozen and never published, so a publisher who runs ten plans and shows the best is seen doing so. The log is the publisher\'s own file: it shows the plans the publisher logged, and a retained copy that is no longer a prefix of it is a finding (FREEZE_LOG_REWRITTEN); it cannot show a plan frozen with another copy of the tool, or a log started afresh elsewhere. A plan page whose plan is not in it says so.',
        ],
      },
      {
        id: 'trust',
        term: 'Still trust',
        text: [
          'The evidence itself: a harness that invents attempts and grades them consistently makes a valid bundle. That the site publishes all of its evidence and history: a host can leave a bundle or a retained report out entirely. The signer, for a signed report, and only under a key you pinned. The freeze time of a plan that is not anchored, which is the publisher\'s own clock; a freeze log the publisher began afresh or kept elsewhere. The bytes of withheld files, and a file the build could not read (a link, an unreadable file, a file over a limit), whose bundle is never counted.',
        ],
      },
    ],
  },
];

/** Every term of the page, in order. */
export function allTerms(): Term[] {
  return METHODOLOGY.flatMap((section) => section.terms);
}

/** The acceptance rule in force as a sentence, from the report's config (never a hard-coded default). */
export function acceptanceText(acceptance: { min_improved: number }): string {
  const n = acceptance.min_improved;
  if (n === 0) return 'PASS needs regressed = 0 and improved >= 0: no headline task regressed; no improvement is required.';
  return `PASS needs regressed = 0 and improved >= ${n}: no headline task regressed and at least ${n} headline task${n === 1 ? '' : 's'} improved.`;
}
