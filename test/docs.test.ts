/**
 * Generated docs are fresh, and the finding catalog is exactly the table of
 * FORMAT.md section 6 (same codes, same severities).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { findingCodesMarkdown } from '../scripts/docs/finding-codes.ts';
import { configMarkdown } from '../scripts/docs/config.ts';
import { parseConfig } from '../src/config/config.ts';
import { FINDING_CODES } from '../src/verify/findings.ts';

describe('docs/finding-codes.md', () => {
  it('is generated from the catalog (run `npm run generate` if this fails)', async () => {
    const committed = await readFile(new URL('../docs/finding-codes.md', import.meta.url), 'utf8');
    expect(committed).toBe(findingCodesMarkdown());
  });
});

describe('docs/config.md', () => {
  it('is generated from the config schema (run `npm run generate` if this fails)', async () => {
    const committed = await readFile(new URL('../docs/config.md', import.meta.url), 'utf8');
    expect(committed).toBe(configMarkdown());
  });

  it('documents every member, and its example is a valid config equal to the demo config', async () => {
    const text = configMarkdown();
    for (const member of ['$schema', 'title', 'site_url', 'bundles_dir', 'retained_reports_dir', 'acceptance', 'acceptance.min_improved', 'grading_pin', 'grading_pin.id', 'limits', 'limits.files', 'limits.depth']) {
      expect(text, member).toContain(`| \`${member}\` |`);
    }
    const example = /```json\n([\s\S]*?)```/.exec(text)![1]!;
    const demo = await readFile(new URL('../ledgerboard.config.json', import.meta.url), 'utf8');
    expect(parseConfig(new TextEncoder().encode(example), 'example')).toEqual(parseConfig(new TextEncoder().encode(demo), 'demo'));
  });
});

describe('the finding catalog', () => {
  it('holds every code of the table of docs/format.md (the contract) with its severity', async () => {
    const format = await readFile(new URL('../docs/format.md', import.meta.url), 'utf8');
    const rows = [...format.matchAll(/^\| ([A-Z_]+) \| ([EW])\b/gm)].map((m) => [m[1]!, m[2] === 'E' ? 'error' : 'warning'] as const);
    expect(rows.length).toBeGreaterThanOrEqual(31);
    for (const [code, severity] of rows) {
      expect(FINDING_CODES, code).toHaveProperty(code);
      expect(FINDING_CODES[code as keyof typeof FINDING_CODES].severity, code).toBe(severity);
    }
  });
});

describe('finding codes found outside verifyBundle', () => {
  const FIXTURES: Record<string, string> = {
    LIMIT_EXCEEDED: 'evidence/limits.test.ts',
    REWRITTEN_EVIDENCE: 'history/history.test.ts',
    INTERNAL_ERROR: 'pipeline/internal-error.test.ts',
  };
  it('each has a fixture test that names it', async () => {
    const staged = Object.entries(FINDING_CODES).filter(([, info]) => 'stage' in info).map(([code]) => code);
    expect(staged.sort()).toEqual(Object.keys(FIXTURES).sort());
    for (const [code, file] of Object.entries(FIXTURES)) {
      expect(await readFile(new URL(file, import.meta.url), 'utf8'), file).toContain(`'${code}'`);
    }
  });
});

/**
 * docs/format.md is the contract as this repository holds it: the upstream
 * FORMAT.md verbatim except its opening paragraph, which speaks to the
 * reader of this repository. Where the upstream copy is checked out beside
 * the repository (the maintainers' machines), the rest must match it byte for
 * byte; a clone alone has no such file and the comparison is skipped, saying so.
 */
const UPSTREAM_FORMAT = new URL('../../shared/FORMAT.md', import.meta.url);

/** The text without its opening paragraph (from the title to the first "Words:"). */
function withoutPreface(text: string): string {
  const start = text.indexOf('\n\n');
  const words = text.indexOf('\nWords:');
  return start >= 0 && words > start ? text.slice(0, start) + text.slice(words) : text;
}

describe('docs/format.md', () => {
  it('speaks to the reader of this repository, not of hidden test bundles', async () => {
    const copy = await readFile(new URL('../docs/format.md', import.meta.url), 'utf8');
    expect(copy.startsWith('# Evidence bundle format, version 1\n\n')).toBe(true);
    expect(copy).not.toMatch(/hidden conformance/i);
    expect(copy).toMatch(/\nWords: /);
  });

  const upstream = existsSync(UPSTREAM_FORMAT);
  if (!upstream) console.log('docs/format.md: ../shared/FORMAT.md is not beside this checkout, so the comparison with the upstream contract is skipped');
  it.skipIf(!upstream)(
    upstream
      ? 'is the upstream contract byte for byte after its opening paragraph (copy it again when the contract changes)'
      : 'is the upstream contract: SKIPPED, ../shared/FORMAT.md is not beside this checkout',
    async () => {
      const copy = await readFile(new URL('../docs/format.md', import.meta.url), 'utf8');
      expect(withoutPreface(copy)).toBe(withoutPreface(await readFile(UPSTREAM_FORMAT, 'utf8')));
    },
  );
});

describe('docs/threat-model.md', () => {
  it('names only tests that exist, and every finding code of a check it names is in the catalog', async () => {
    const text = await readFile(new URL('../docs/threat-model.md', import.meta.url), 'utf8');
    const tests = [...new Set([...text.matchAll(/`(test\/[\w/.-]+\.ts)`/g)].map((m) => m[1]!))];
    expect(tests.length).toBeGreaterThan(15);
    for (const test of tests) await expect(readFile(new URL(`../${test}`, import.meta.url)), test).resolves.toBeDefined();
    const codes = [...new Set([...text.matchAll(/`([A-Z][A-Z_]{3,})`/g)].map((m) => m[1]!))].filter((c) => !['NO_VERDICT', 'O_NOFOLLOW', 'O_NONBLOCK'].includes(c));
    for (const code of codes) expect(FINDING_CODES, code).toHaveProperty(code);
  });
});

describe('docs/formulas.md', () => {
  it('the worked delta example quotes the golden report (seed prefix and interval)', async () => {
    const text = await readFile(new URL('../docs/formulas.md', import.meta.url), 'utf8');
    const golden = JSON.parse(await readFile(new URL('golden/demo-report.json', import.meta.url), 'utf8')) as {
      cohorts: { cohort_id: string; delta: { seed: string; interval: [number, number] } | null }[];
    };
    const cohort = golden.cohorts.find((c) => c.cohort_id.startsWith('sha256:94351551'))!;
    expect(text).toContain(`\`${cohort.delta!.seed.slice(0, 15)}.../sha256:94351551.../sha256:ae41c3cb...\``);
    expect(text).toContain(`[${cohort.delta!.interval[0]}, ${cohort.delta!.interval[1]}]`);
  });
});
