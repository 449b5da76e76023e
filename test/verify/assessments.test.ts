/**
 * assessments.json (FORMAT.md 11.2, issue 27 item 2): parsed strictly like
 * every file when the manifest lists it; ASSESSMENT_UNKNOWN_SUBJECT,
 * ASSESSMENT_BASIS_MISSING and two assessments of one pair as
 * SCHEMA_VIOLATION, each message word for word; hostile strings kept as
 * data; the parsed assessments on the verified evidence (through threads and
 * the verification cache); and `seal` with an assessment and its basis.
 */
import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceFromWire, evidenceToWire } from '../../src/bundle/evidence.ts';
import { parseStrictJson } from '../../src/json/strict-json.ts';
import { fromWire, toWire } from '../../src/pipeline/wire.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { Assessments, type Assessment } from '../../src/schema/assessments.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import {
  BASELINE,
  CANDIDATE,
  bytesOf,
  makeTempDir,
  removeTempDirs,
  sealBundle,
  snapshotOf,
  validBundle,
  verifyInMemory,
  verifyModel,
  writeModel,
  type BundleModel,
} from '../helpers/bundle-builder.ts';
import { testCache } from '../helpers/cache-store.ts';
import { readCorpora } from '../browser/hostile.ts';
import { cli } from '../author/helpers.ts';

afterAll(removeTempDirs);

const SCHEMA = 'ledgerboard.assessments.v1';
const PATH = 'assessments.json';

/** A valid assessment of the candidate, with members over it. */
function assessment(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    indicator: 'no_weight_tampering',
    subject: { model: CANDIDATE.model, agent: { ...CANDIDATE.agent } },
    level: 'supported',
    by: 'red team, example.org',
    ...over,
  };
}

/** assessments.json's text for these assessments (or a whole file object). */
function fileText(assessments: unknown[] | Record<string, unknown>): string {
  const file = Array.isArray(assessments) ? { schema: SCHEMA, assessments } : assessments;
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** The valid bundle with assessments.json (listed, sealed) holding `text`, and optional extra listed files. */
function withFile(text: string, extra: Record<string, string> = {}): BundleModel {
  const model = validBundle();
  model.extra.set(PATH, bytesOf(text));
  for (const [path, content] of Object.entries(extra)) model.extra.set(path, bytesOf(content));
  return model;
}

/** Findings as `CODE file: message` lines. */
function found(model: BundleModel): string[] {
  return verifyInMemory(model).findings.map((f) => `${f.code} ${f.file}: ${f.message}`);
}

const BASIS = 'artifacts/assessments/tamper.md';
const BASIS_TEXT = '# Fine-tuning attack, 2026-09\n\nTwelve attacks; none moved the refusal rate by more than 2 points.\n';

describe('a valid assessments.json', () => {
  it('verifies with no finding, and its assessments reach the verified evidence in file order', () => {
    const entries = [
      assessment({ basis: BASIS }),
      assessment({ indicator: 'resists_jailbreaks', level: 'indicative' }),
      assessment({ subject: { model: BASELINE.model, agent: { ...BASELINE.agent } }, level: 'strong', by: 'another team' }),
    ];
    const result = verifyInMemory(withFile(fileText(entries), { [BASIS]: BASIS_TEXT }));
    expect(result.findings).toEqual([]);
    expect(result.status).toBe('verified');
    expect(result.evidence.assessments).toEqual(entries);
  });

  it('without the file the evidence holds no assessments (an empty list, not null)', () => {
    const result = verifyInMemory(validBundle());
    expect(result.status).toBe('verified');
    expect(result.evidence.assessments).toEqual([]);
  });

  it('an empty list of assessments is valid', () => {
    const result = verifyInMemory(withFile(fileText([])));
    expect(result.findings).toEqual([]);
    expect(result.evidence.assessments).toEqual([]);
  });

  // A subject is model + agent name + version (FORMAT.md 7.1): the plan's selector and role play no part.
  it('a subject matches the plan by model and agent: the baseline, named without its selector or role', () => {
    const model = withFile(fileText([assessment({ subject: { model: BASELINE.model, agent: { name: BASELINE.agent.name, version: BASELINE.agent.version } } })]));
    expect(found(model)).toEqual([]);
  });

  it('the verifier never judges indicator or level names (it does not know the card)', () => {
    const model = withFile(fileText([assessment({ indicator: 'Not An Id!', level: 'legendary', by: '' })]));
    const result = verifyInMemory(model);
    expect(result.findings).toEqual([]);
    expect(result.evidence.assessments[0]).toMatchObject({ indicator: 'Not An Id!', level: 'legendary', by: '' });
  });

  it('one indicator for two subjects, and two indicators for one subject, are not duplicates', () => {
    const model = withFile(
      fileText([
        assessment(),
        assessment({ subject: { model: BASELINE.model, agent: { ...BASELINE.agent } } }),
        assessment({ indicator: 'other' }),
      ]),
    );
    expect(found(model)).toEqual([]);
  });

  it('from disk (read by the reader as a structured file) as in memory', async () => {
    const entries = [assessment({ basis: BASIS })];
    const result = await verifyModel(withFile(fileText(entries), { [BASIS]: BASIS_TEXT }));
    expect(result.findings).toEqual([]);
    expect(result.evidence.assessments).toEqual(entries);
  });
});

describe('strict parsing', () => {
  it('unknown members, at the root, in an assessment and in its subject: UNKNOWN_MEMBER each, and the rest is kept', () => {
    const text = fileText({
      schema: SCHEMA,
      note: 'x',
      assessments: [assessment({ confidence: 0.9, subject: { model: CANDIDATE.model, agent: { ...CANDIDATE.agent, build: 'z' } } })],
    });
    const result = verifyInMemory(withFile(text));
    expect(result.findings.map((f) => `${f.code} ${f.file}: ${f.message}`)).toEqual([
      'UNKNOWN_MEMBER assessments.json: assessments[0].subject.agent: unknown member "build"',
      'UNKNOWN_MEMBER assessments.json: assessments[0]: unknown member "confidence"',
      'UNKNOWN_MEMBER assessments.json: (root): unknown member "note"',
    ]);
    expect(result.status).toBe('invalid');
    expect(result.evidence.assessments).toEqual([assessment()]);
  });

  const wrong: [string, unknown, string][] = [
    ['a level that is a number', fileText([assessment({ level: 3 })]), 'assessments[0].level: Invalid input: expected string, received number'],
    ['an indicator that is null', fileText([assessment({ indicator: null })]), 'assessments[0].indicator: Invalid input: expected string, received null'],
    ['by missing', fileText([{ ...assessment(), by: undefined }]), 'assessments[0].by: Invalid input: expected string, received undefined'],
    ['a basis that is null (optional, never null)', fileText([assessment({ basis: null })]), 'assessments[0].basis: Invalid input: expected string, received null'],
    ['a subject that is a string', fileText([assessment({ subject: CANDIDATE.model })]), 'assessments[0].subject: Invalid input: expected object, received string'],
    ['another schema version', fileText({ schema: 'ledgerboard.assessments.v2', assessments: [] }), 'schema: Invalid input: expected "ledgerboard.assessments.v1"'],
    ['assessments that are an object', fileText({ schema: SCHEMA, assessments: {} }), 'assessments: Invalid input: expected array, received object'],
    ['a root that is an array', '[]\n', '(root): Invalid input: expected object, received array'],
  ];
  for (const [name, text, message] of wrong) {
    it(`${name}: SCHEMA_VIOLATION, and no assessment reaches the evidence`, () => {
      const result = verifyInMemory(withFile(text as string));
      expect(result.findings.map((f) => `${f.code} ${f.file}: ${f.message}`)).toEqual([`SCHEMA_VIOLATION assessments.json: ${message}`]);
      expect(result.status).toBe('invalid');
      expect(result.evidence.assessments).toEqual([]);
    });
  }

  it('a duplicate member name is BAD_JSON with its line and column', () => {
    const result = verifyInMemory(withFile('{"schema":"ledgerboard.assessments.v1","schema":"x","assessments":[]}'));
    expect(result.findings).toEqual([{ code: 'BAD_JSON', severity: 'error', file: PATH, line: 1, message: 'line 1, column 40: duplicate member name "schema"' }]);
  });

  it('two assessments of one indicator for one subject: SCHEMA_VIOLATION naming both, once per later one', () => {
    const model = withFile(
      fileText([
        assessment(),
        assessment({ indicator: 'other' }),
        assessment({ level: 'strong', by: 'a second team' }),
        assessment({ level: 'indicative' }),
      ]),
    );
    const result = verifyInMemory(model);
    const who = 'model "acme/mini-2026-08-01" with agent "loop" version "3.1.0"';
    expect(result.findings.map((f) => `${f.code} ${f.file}: ${f.message}`)).toEqual([
      `SCHEMA_VIOLATION assessments.json: assessments[2] and assessments[0] both assess indicator "no_weight_tampering" for ${who}: one file holds one assessment of an indicator per subject`,
      `SCHEMA_VIOLATION assessments.json: assessments[3] and assessments[0] both assess indicator "no_weight_tampering" for ${who}: one file holds one assessment of an indicator per subject`,
    ]);
    expect(result.status).toBe('invalid');
  });

  it('a subject that is not in the plan: ASSESSMENT_UNKNOWN_SUBJECT, naming the agents the plan runs that model with', () => {
    const model = withFile(
      fileText([
        assessment({ subject: { model: 'acme/other', agent: { ...CANDIDATE.agent } } }),
        assessment({ subject: { model: CANDIDATE.model, agent: { name: 'loop', version: '3.1.1' } } }),
        // The agent's name and version swapped around the "@" of "loop@3.1.0" are another subject.
        assessment({ subject: { model: CANDIDATE.model, agent: { name: 'loop@3.1.0', version: '' } } }),
      ]),
    );
    const result = verifyInMemory(model);
    expect(result.findings.map((f) => `${f.code} ${f.file}: ${f.message}`)).toEqual([
      'ASSESSMENT_UNKNOWN_SUBJECT assessments.json: assessments[0].subject: model "acme/other" with agent "loop" version "3.1.0" is not a subject of the plan',
      'ASSESSMENT_UNKNOWN_SUBJECT assessments.json: assessments[1].subject: model "acme/mini-2026-08-01" with agent "loop" version "3.1.1" is not a subject of the plan; the plan runs that model with agent "loop" version "3.1.0"',
      'ASSESSMENT_UNKNOWN_SUBJECT assessments.json: assessments[2].subject: model "acme/mini-2026-08-01" with agent "loop@3.1.0" version "" is not a subject of the plan; the plan runs that model with agent "loop" version "3.1.0"',
    ]);
    expect(result.status).toBe('invalid');
  });

  it('a basis the manifest does not list: ASSESSMENT_BASIS_MISSING, no_verdict', () => {
    const result = verifyInMemory(withFile(fileText([assessment({ basis: BASIS })])));
    expect(result.findings.map((f) => `${f.code} ${f.file}: ${f.message}`)).toEqual([
      `ASSESSMENT_BASIS_MISSING assessments.json: assessments[0].basis "${BASIS}" is not listed in the manifest, so the assessment's basis is not in the bundle`,
    ]);
    expect(result.status).toBe('no_verdict');
  });

  it('a basis on disk but not listed: UNLISTED_FILE on the file and ASSESSMENT_BASIS_MISSING on the assessment (invalid)', async () => {
    const result = await verifyModel(withFile(fileText([assessment({ basis: BASIS })])), { after: { [BASIS]: BASIS_TEXT } });
    expect(result.findings.map((f) => [f.code, f.file])).toEqual([
      ['UNLISTED_FILE', BASIS],
      ['ASSESSMENT_BASIS_MISSING', PATH],
    ]);
    expect(result.status).toBe('invalid');
  });

  it('a listed basis whose file is gone is MISSING_FILE on the file, not also ASSESSMENT_BASIS_MISSING', async () => {
    const result = await verifyModel(withFile(fileText([assessment({ basis: BASIS })]), { [BASIS]: BASIS_TEXT }), { remove: [BASIS] });
    expect(result.findings.map((f) => [f.code, f.file])).toEqual([['MISSING_FILE', BASIS]]);
    expect(result.status).toBe('no_verdict');
  });

  it('an unknown subject with a missing basis is invalid (precedence: an error other than the no-verdict codes)', () => {
    const model = withFile(fileText([assessment({ subject: { model: 'acme/other', agent: { ...CANDIDATE.agent } }, basis: 'nope.md' })]));
    const result = verifyInMemory(model);
    expect(result.findings.map((f) => f.code)).toEqual(['ASSESSMENT_UNKNOWN_SUBJECT', 'ASSESSMENT_BASIS_MISSING']);
    expect(result.status).toBe('invalid');
  });

  it('an assessments.json on disk that the manifest does not list is UNLISTED_FILE only: never read as evidence', async () => {
    const text = fileText([assessment({ subject: { model: 'acme/other', agent: { ...CANDIDATE.agent } }, level: 3 })]);
    const result = await verifyModel(validBundle(), { after: { [PATH]: text } });
    expect(result.findings.map((f) => [f.code, f.file])).toEqual([['UNLISTED_FILE', PATH]]);
    expect(result.evidence.assessments).toEqual([]);
  });

  it('without a readable plan the subject check is skipped, not guessed', async () => {
    const model = withFile(fileText([assessment({ subject: { model: 'acme/other', agent: { ...CANDIDATE.agent } } })]));
    const result = await verifyModel(model, { remove: ['plan.json'] });
    expect(result.findings.map((f) => f.code)).not.toContain('ASSESSMENT_UNKNOWN_SUBJECT');
    expect(result.findings.map((f) => [f.code, f.file])).toContainEqual(['MISSING_FILE', 'plan.json']);
  });

  it('a string over limits.string_bytes is LIMIT_EXCEEDED naming the field, never quoting it', () => {
    const long = 'x'.repeat(300);
    const result = verifyBundle(snapshotOf(withFile(fileText([assessment({ by: long })]))), { string_bytes: 256 });
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ code: 'LIMIT_EXCEEDED', file: PATH });
    expect(result.findings[0]!.message).toContain('assessments[0].by');
    expect(result.findings[0]!.message).not.toContain(long);
  });

  it('the schema only validates (no default or transform): an accepted file is the parsed value itself', () => {
    const value = { schema: SCHEMA, assessments: [assessment({ basis: BASIS })] };
    expect(Assessments.parse(value)).toEqual(value);
  });
});

describe('hostile strings in by, indicator and level are kept as data', () => {
  let strings: string[] = [];
  beforeAll(async () => {
    const { xss, blns } = await readCorpora();
    // Only strings strict JSON can carry (no lone surrogate, no noncharacter: those are BAD_JSON, tested elsewhere).
    strings = [...new Set([...xss, ...blns, '', '\u202e', '</script><script>alert(1)</script>', '{{constructor.constructor("alert(1)")()}}'])].filter(
      (s) => parseStrictJson(new TextEncoder().encode(JSON.stringify(s))).ok,
    );
    expect(strings.length).toBeGreaterThan(500);
  });

  it('every string, as indicator, level and by, verifies and reaches the evidence byte for byte', () => {
    const entries = strings.map((s, i) => assessment({ indicator: s, level: strings[(i + 1) % strings.length], by: strings[(i + 2) % strings.length] }));
    const result = verifyInMemory(withFile(fileText(entries)));
    expect(result.findings).toEqual([]);
    expect(result.status).toBe('verified');
    expect(result.evidence.assessments).toEqual(entries);
  });

  it('in a message a hostile name is a JSON string: quoted and escaped, never raw control characters', () => {
    const entries = strings.flatMap((s) => [assessment({ indicator: s }), assessment({ indicator: s, level: 'again' })]);
    const result = verifyInMemory(withFile(fileText(entries)));
    const who = 'model "acme/mini-2026-08-01" with agent "loop" version "3.1.0"';
    expect(result.findings.map((f) => f.message)).toEqual(
      strings.map((s, i) => `assessments[${2 * i + 1}] and assessments[${2 * i}] both assess indicator ${JSON.stringify(s)} for ${who}: one file holds one assessment of an indicator per subject`),
    );
    // eslint-disable-next-line no-control-regex
    for (const f of result.findings) expect(f.message).not.toMatch(/[\u0000-\u001f]/);
  });

  it('a hostile model or agent in a subject is quoted the same way', () => {
    const model = withFile(fileText([assessment({ subject: { model: '<img src=x onerror=alert(1)>\n', agent: { name: '"\u0000', version: '\u2028' } } })]));
    expect(found(model)).toEqual([
      `ASSESSMENT_UNKNOWN_SUBJECT assessments.json: assessments[0].subject: model ${JSON.stringify('<img src=x onerror=alert(1)>\n')} with agent ${JSON.stringify('"\u0000')} version ${JSON.stringify('\u2028')} is not a subject of the plan`,
    ]);
  });
});

describe('the assessments travel with the verified evidence', () => {
  const entries = [assessment({ basis: BASIS }), assessment({ indicator: 'other', level: 'strong' })];

  it('through the posted form (threads) and its compact form (the cache)', () => {
    const result = verifyInMemory(withFile(fileText(entries), { [BASIS]: BASIS_TEXT }));
    for (const compact of [false, true]) {
      expect(evidenceFromWire(evidenceToWire(result.evidence, compact).wire).assessments).toEqual(entries);
      const directory = { verification: result, content_digest: 'sha256:' + '0'.repeat(64), entries: [] };
      expect(fromWire(structuredClone(toWire(directory, compact).wire)).verification.evidence.assessments).toEqual(entries);
    }
  });

  it('verifyPaths gives them in the main thread, on worker threads and from the verification cache, and a changed file is verified again', async () => {
    const model = withFile(fileText(entries), { [BASIS]: BASIS_TEXT });
    const dir = await writeModel(model);
    const cache = testCache(join(await makeTempDir(), 'cache'));
    const main = await verifyPaths([dir], undefined, { workers: 0, cache });
    expect(main[0]!.cached).toBeUndefined();
    expect(main[0]!.verification.evidence.assessments).toEqual(entries);
    const again = await verifyPaths([dir], undefined, { workers: 0, cache });
    expect(again[0]!.cached).toBe(true);
    expect(again[0]!.verification.evidence.assessments).toEqual(entries);
    const threaded = await verifyPaths([dir], undefined, { workers: 1 });
    expect(threaded[0]!.verification.evidence.assessments).toEqual(entries);
    // Other bytes (an unlisted level change): another key, verified afresh.
    const changed = [assessment({ basis: BASIS, level: 'strong' }), entries[1]!];
    const dir2 = await writeModel(withFile(fileText(changed), { [BASIS]: BASIS_TEXT }));
    const fresh = await verifyPaths([dir2], undefined, { workers: 0, cache });
    expect(fresh[0]!.cached).toBeUndefined();
    expect(fresh[0]!.verification.evidence.assessments).toEqual(changed);
  });
});

describe('ledgerboard seal with assessments.json', () => {
  /** A filled bundle directory (every file of the valid bundle but the manifest) with assessments.json and these extra files. */
  async function unsealed(text: string, extra: Record<string, string> = {}): Promise<string> {
    const sealed = sealBundle(withFile(text));
    const dir = join(await makeTempDir(), 'bundle');
    const files = new Map(sealed.files);
    for (const [path, content] of Object.entries(extra)) files.set(path, bytesOf(content));
    for (const [path, bytes] of files) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), bytes);
    }
    return dir;
  }

  it('seals the file and its basis, and the sealed bundle verifies with the assessment on its evidence: exit 0', async () => {
    const entries = [assessment({ basis: BASIS })];
    const dir = await unsealed(fileText(entries), { [BASIS]: BASIS_TEXT });
    const result = await cli(['seal', dir]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    expect(manifest.files.map((f) => f.path)).toEqual(expect.arrayContaining([PATH, BASIS]));
    expect(result.stdout).toMatch(/^verified +bundle [0-9a-f]{12}/m);
    const [verified] = await verifyPaths([dir], undefined, { workers: 0 });
    expect(verified!.verification.evidence.assessments).toEqual(entries);
  });

  it('refuses a basis that is not a file of the directory, naming each: exit 2, nothing written', async () => {
    // The second assessment also has an unknown member: a basis is checked whatever else is wrong (the verifier says the rest).
    const dir = await unsealed(fileText([assessment({ basis: BASIS }), assessment({ indicator: 'other', basis: 'artifacts/a b/\u00e9.md', confidence: 1 }), assessment({ indicator: 'third' })]));
    const result = await cli(['seal', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ledgerboard seal: refused (2 problems); nothing was written');
    expect(result.stderr).toContain(
      `  assessments.json: assessments[0].basis "${BASIS}" is not a file of the bundle directory, so the manifest could not list it (ASSESSMENT_BASIS_MISSING): put the basis there (under artifacts/) before sealing, or drop the member`,
    );
    expect(result.stderr).toContain('  assessments.json: assessments[1].basis "artifacts/a b/\u00e9.md" is not a file of the bundle directory');
    await expect(lstat(join(dir, 'manifest.json'))).rejects.toThrow(/ENOENT/);
  });

  it('seals an assessments.json the verifier rejects as it is, prints its findings and exits 1', async () => {
    const dir = await unsealed(fileText([assessment({ subject: { model: 'acme/other', agent: { ...CANDIDATE.agent } } }), assessment({ level: 7 })]));
    const result = await cli(['seal', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^invalid +bundle [0-9a-f]{12}/m);
    expect(result.stdout).toMatch(/^ {4}error +SCHEMA_VIOLATION: /m);
    expect(await readdir(dir)).toContain('manifest.json');
  });

  it('an assessment added to a sealed bundle enters with a new seal: same plan, new bundle id, verified', async () => {
    const dir = await writeModel(validBundle());
    const before = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { bundle_id: string; plan_id: string };
    await mkdir(join(dir, dirname(BASIS)), { recursive: true });
    await writeFile(join(dir, BASIS), BASIS_TEXT);
    await writeFile(join(dir, PATH), fileText([assessment({ basis: BASIS })]));
    expect((await cli(['seal', dir])).code).toBe(1); // Create-only: the manifest is never overwritten.
    await rm(join(dir, 'manifest.json'));
    const result = await cli(['seal', dir]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const after = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { bundle_id: string; plan_id: string };
    expect(after.plan_id).toBe(before.plan_id);
    expect(after.bundle_id).not.toBe(before.bundle_id);
  });
});

/** Type check: the evidence member is the shared agreement's `Assessment[]`. */
const _typed: (e: ReturnType<typeof verifyInMemory>['evidence']) => Assessment[] = (e) => e.assessments;
void _typed;
