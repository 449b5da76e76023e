/**
 * FORMAT.md section 6: "Checks that need a missing input are skipped, not
 * guessed." A malformed line may hold exactly the task or attempt a check
 * would need, so such checks do not run over it.
 */
import { describe, expect, it } from 'vitest';
import { jsonlBytes } from '../../src/evidence/seal.ts';
import { validBundle, verifyInMemory } from '../helpers/bundle-builder.ts';

const codes = (findings: { code: string }[]) => findings.map((f) => f.code);

describe('skipped, not guessed', () => {
  it('a malformed ledger line: attempts for its task are not UNPLANNED_ATTEMPT', () => {
    const model = validBundle();
    const lines = Buffer.from(jsonlBytes(model.ledger)).toString('utf8').split('\n');
    lines[0] = `${lines[0]!.slice(0, -1)},}`; // a trailing comma: BAD_JSON on line 1
    const result = verifyInMemory(model, { raw: { 'ledger.jsonl': lines.join('\n') } });
    expect(codes(result.findings)).toContain('BAD_JSON');
    expect(codes(result.findings)).not.toContain('UNPLANNED_ATTEMPT');
    expect(result.status).toBe('invalid');
  });

  it('a well-formed ledger still catches an attempt on a task it does not hold', () => {
    const model = validBundle();
    model.attempts[0]!.task_id = 'not-in-the-ledger';
    const result = verifyInMemory(model);
    expect(codes(result.findings)).toContain('UNPLANNED_ATTEMPT');
  });

  it('a malformed attempts line: no UNACCOUNTED_SLOT is guessed for the slot it may fill', () => {
    const model = validBundle();
    const lines = Buffer.from(jsonlBytes(model.attempts)).toString('utf8').split('\n');
    lines[0] = lines[0]!.replace('{', '{,');
    const result = verifyInMemory(model, { raw: { 'attempts.jsonl': lines.join('\n') } });
    expect(codes(result.findings)).toContain('BAD_JSON');
    expect(codes(result.findings)).not.toContain('UNACCOUNTED_SLOT');
  });

  it('a well-formed attempts file still warns for an empty slot', () => {
    const model = validBundle();
    const dropped = model.attempts.pop()!;
    for (const generation of model.grades) {
      generation.value.results = generation.value.results.filter((r) => r.attempt_id !== dropped.attempt_id);
    }
    const result = verifyInMemory(model);
    expect(codes(result.findings)).toEqual(['UNACCOUNTED_SLOT']);
    expect(result.status).toBe('verified');
  });
});
