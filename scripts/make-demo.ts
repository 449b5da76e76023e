/**
 * Writes the demo evidence that the site publishes and the tests check:
 *
 * - content/bundles/<name>/: four verified bundles of the widget-bugs ledger
 *   (three monthly plans on one board, one plan with another tool policy;
 *   the November one also holds a red team's assessments.json, which the demo
 *   score card, content/scorecard.json, hand-written, reads: FORMAT.md 11);
 *   two of them hold a time-stamp token, anchors/demo-tsa.tsr (FORMAT.md 12),
 *   copied from the committed content/anchors/<name>/ (made once by
 *   scripts/make-demo-anchors.ts; scripts/demo/anchors.ts says which and why)
 *   after checking it against its plan and the demo root,
 *   content/timestamp-roots/demo-tsa-root.pem;
 * - content/history/freeze-log.jsonl: the freeze log of every demo plan and
 *   of two plans frozen and never published (scripts/demo/freeze-log.ts);
 * - content/examples/{invalid,no_verdict}/ and content/examples/README.md:
 *   two small bundles that do not verify, and what each demonstrates.
 *
 * Deterministic: seeded PRNG streams, fixed instants, no clock; running it
 * twice gives the same bytes. It removes and rewrites only bundles/ and
 * examples/ under the output directory, and writes history/freeze-log.jsonl.
 *
 * Usage: npx tsx scripts/make-demo.ts [--out DIR]   (default: the repo's content/)
 */
import { mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBundle } from '../src/evidence/seal.ts';
import { shortDigest } from '../src/json/canonical.ts';
import { loadDemoAnchors } from './demo/anchors.ts';
import { buildPlanBundle, freezePlan } from './demo/bundle.ts';
import { designProblems } from './demo/design.ts';
import { buildInvalidExample, buildNoVerdictExample, examplesReadme } from './demo/examples.ts';
import { ledgerRecord } from './demo/ledger.ts';
import { freezeLogBytes } from './demo/freeze-log.ts';
import { DEMO_PLANS, UNPUBLISHED_PLANS } from './demo/plans.ts';
import { TASKS } from './demo/tasks.ts';
import { isEntryPoint } from './entry-point.ts';

/** The repository's content/: where the committed anchors and the demo root are read from, whatever the output directory. */
const CONTENT = join(dirname(fileURLToPath(import.meta.url)), '..', 'content');

/**
 * Writes the demo under outDir (bundles/ and examples/, replaced; history/freeze-log.jsonl); returns one
 * summary line per bundle. The tokens are read from the repository's content/anchors and checked against
 * content/timestamp-roots.
 */
export async function generateDemo(outDir: string): Promise<string[]> {
  const built = DEMO_PLANS.map(buildPlanBundle);
  const anchors = await loadDemoAnchors(join(CONTENT, 'anchors'), join(CONTENT, 'timestamp-roots'), new Map(built.map((b) => [b.dir, b.plan])));
  for (const a of anchors) built.find((b) => b.dir === a.spec.dir)!.files.set(a.path, a.bytes);
  const freezeLog = freezeLogBytes(
    built.map((b) => ({ plan: b.plan, anchors: anchors.filter((a) => a.spec.dir === b.dir) })),
    UNPUBLISHED_PLANS.map(freezePlan),
  );
  const ledger = TASKS.map(ledgerRecord);
  const problems = designProblems(built.map((b) => ({ plan: b.plan, ledger, attempts: b.sims.map((s) => s.attempt), grades: b.grades })));
  if (problems.length > 0) throw new Error(`the demo does not show what it should:\n- ${problems.join('\n- ')}`);
  const examples = [buildInvalidExample(), buildNoVerdictExample()];

  const bundlesDir = join(outDir, 'bundles');
  const examplesDir = join(outDir, 'examples');
  await rm(bundlesDir, { recursive: true, force: true });
  await rm(examplesDir, { recursive: true, force: true });

  const lines: string[] = [];
  for (const b of built) {
    const manifest = JSON.parse((await writeBundle(join(bundlesDir, b.dir), b.files, b.plan.plan_id)).toString('utf8')) as { bundle_id: string };
    const { tasks } = b.plan.ledger;
    const subjects = b.plan.subjects.length;
    lines.push(
      `bundles/${b.dir}: ${b.sims.length} attempts (${tasks} tasks x ${subjects} subjects x ${b.plan.attempts}), ` +
        `${b.grades.length} grade generation${b.grades.length === 1 ? '' : 's'}, ${b.files.size + 1} files, ` +
        `plan ${shortDigest(b.plan.plan_id)}, bundle ${shortDigest(manifest.bundle_id)}`,
    );
  }
  for (const e of examples) {
    const dir = join(examplesDir, e.dir);
    const manifest = JSON.parse((await writeBundle(dir, e.files, e.planId)).toString('utf8')) as { bundle_id: string };
    for (const path of e.removeAfterSealing) await unlink(join(dir, ...path.split('/')));
    lines.push(`examples/${e.dir}: expect ${e.dir} with ${e.expectedCodes.join(', ')}; plan ${shortDigest(e.planId)}, bundle ${shortDigest(manifest.bundle_id)}`);
  }
  await mkdir(examplesDir, { recursive: true });
  await writeFile(join(examplesDir, 'README.md'), examplesReadme(examples));
  await mkdir(join(outDir, 'history'), { recursive: true });
  await writeFile(join(outDir, 'history', 'freeze-log.jsonl'), freezeLog);
  lines.push(`history/freeze-log.jsonl: ${freezeLog.toString('utf8').split('\n').length - 1} lines, ${DEMO_PLANS.length + UNPUBLISHED_PLANS.length} plans (${UNPUBLISHED_PLANS.length} never published)`);
  return lines;
}

async function main(argv: string[]): Promise<number> {
  let out: string;
  try {
    const { values } = parseArgs({ args: argv, options: { out: { type: 'string' } }, strict: true, allowPositionals: false });
    out = values.out ?? CONTENT;
  } catch (error) {
    console.error(`${(error as Error).message}\nusage: npx tsx scripts/make-demo.ts [--out DIR]`);
    return 2;
  }
  for (const line of await generateDemo(resolve(out))) console.log(line);
  return 0;
}

if (isEntryPoint(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
