/**
 * assessments.json (FORMAT.md 11.2): human assessments of score-card
 * indicators, parsed strictly like every file of the bundle when the
 * manifest lists it. The verifier does not know the score card, so it never
 * judges an `indicator` or a `level` name (the claims do); it checks what
 * the bundle alone can say:
 * - every assessment's subject is a subject of the plan, by model and agent
 *   name and version (ASSESSMENT_UNKNOWN_SUBJECT; skipped without a plan);
 * - a `basis`, when present, is a path the manifest lists
 *   (ASSESSMENT_BASIS_MISSING; whether its bytes are there is MISSING_FILE's
 *   and FILE_DIGEST_MISMATCH's to say);
 * - one file holds at most one assessment of an indicator for a subject
 *   (SCHEMA_VIOLATION naming both).
 * Names from the file are quoted in messages as JSON strings: data, never markup.
 */
import { ASSESSMENTS_PATH, Assessments } from '../schema/assessments.ts';
import { quotePath } from '../evidence/paths.ts';
import { subjectKey } from '../bundle/subject.ts';
import { contentOf, addFinding, type VerifyContext } from './context.ts';
import { parseJsonFile } from './parse-evidence.ts';

/** Parses assessments.json when the manifest lists it and checks each assessment against the plan and the manifest. */
export function checkAssessments(ctx: VerifyContext): void {
  // Evidence only when listed: an unlisted file on disk is UNLISTED_FILE and is never read as evidence.
  if (!ctx.listed.has(ASSESSMENTS_PATH)) return;
  const bytes = contentOf(ctx, ASSESSMENTS_PATH);
  if (bytes === undefined) return; // MISSING_FILE or NOT_REGULAR_FILE already reported.
  const file = parseJsonFile(ctx, ASSESSMENTS_PATH, bytes, Assessments, false)?.data;
  if (!file) return;
  ctx.assessments = file.assessments;

  const plan = ctx.plan;
  const planSubjects = plan ? new Set(plan.subjects.map((s) => subjectKey(s.model, s.agent))) : null;
  const first = new Map<string, number>();
  file.assessments.forEach((assessment, i) => {
    const { indicator, subject, basis } = assessment;
    const who = subjectText(subject.model, subject.agent);
    const pair = JSON.stringify([indicator, subject.model, subject.agent.name, subject.agent.version]);
    const earlier = first.get(pair);
    if (earlier === undefined) first.set(pair, i);
    else {
      addFinding(
        ctx,
        'SCHEMA_VIOLATION',
        ASSESSMENTS_PATH,
        `assessments[${i}] and assessments[${earlier}] both assess indicator ${JSON.stringify(indicator)} for ${who}: one file holds one assessment of an indicator per subject`,
      );
    }
    if (plan && planSubjects && !planSubjects.has(subjectKey(subject.model, subject.agent))) {
      const agents = plan.subjects.filter((s) => s.model === subject.model).map((s) => `agent ${JSON.stringify(s.agent.name)} version ${JSON.stringify(s.agent.version)}`);
      const hint = agents.length > 0 ? `; the plan runs that model with ${agents.join(' and with ')}` : '';
      addFinding(ctx, 'ASSESSMENT_UNKNOWN_SUBJECT', ASSESSMENTS_PATH, `assessments[${i}].subject: ${who} is not a subject of the plan${hint}`);
    }
    if (basis !== undefined && !ctx.listed.has(basis) && !ctx.unsafeListed.has(basis)) {
      addFinding(ctx, 'ASSESSMENT_BASIS_MISSING', ASSESSMENTS_PATH, `assessments[${i}].basis ${quotePath(basis)} is not listed in the manifest, so the assessment's basis is not in the bundle`);
    }
  });
}

/** `model "acme/mini" with agent "loop" version "3.1.0"`: each part JSON-quoted (a name may hold any character). */
function subjectText(model: string, agent: { name: string; version: string }): string {
  return `model ${JSON.stringify(model)} with agent ${JSON.stringify(agent.name)} version ${JSON.stringify(agent.version)}`;
}
