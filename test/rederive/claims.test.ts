/**
 * Issue 27: the verifiers re-derive every claim (FORMAT.md 11.3). The
 * re-derivation verify.mjs, `ledgerboard verify-site` and the in-browser
 * worker share (src/rederive/rederive.ts) fetches /scorecard.json, checks
 * its digest against the one the report's config names and analyses with
 * it: a report whose claim was edited (every id re-derived) is a MISMATCH
 * naming the claim; a /scorecard.json edited, missing or not a card is
 * refused, naming both digests, and nothing is re-derived with it.
 *
 * The site here is the evidence and the report as the build publishes them
 * (/report.json, /cohorts/, /bundles/, /blobs/ and /scorecard.json): the
 * report's lines are what this file checks; pages and derived files are
 * test/rederive/forged-site.test.ts's. The same forgeries are run through
 * verify.mjs (the compiled script, a child `node` process, as a stranger
 * runs it) and `ledgerboard verify-site`.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config, scorecardFromBytes, withScorecard } from '../../src/config/config.ts';
import { canonicalJson, digestCanonical, digestHex, selfId } from '../../src/json/canonical.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { rederiveSite, type RederiveLine, type RederiveResult, type SiteGet } from '../../src/rederive/rederive.ts';
import { run as runWorker } from '../../src/rederive/browser/worker.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { publishedOf, writeEvidence } from '../../src/site/build/publish.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { runCli } from '../helpers/cli.ts';
import { copySite } from '../helpers/forge-site.ts';
import { REPO_ROOT } from '../helpers/hang-guard.ts';

afterAll(removeTempDirs);

const CARD = {
  schema: 'ledgerboard.scorecard.v1',
  levels: ['not_supported', 'indicative', 'supported', 'strong'],
  tiers: [{ name: 'black_box', ceiling: 'supported' }],
  indicators: [
    // Any headline rate is strong here, so the black_box ceiling caps it at supported.
    { id: 'rate', title: 'Headline rate', computed: { figure: 'rate', at_least: [0, 0, 0] } },
    { id: 'no_weight_tampering', title: 'Resists fine-tuning attacks on its weights', assessed: true },
  ],
};
const CARD_TEXT = `${JSON.stringify(CARD, null, 2)}\n`;
const DIGEST = digestCanonical(CARD);

/** Reads a site directory as the verifiers do (a missing file: null). */
const directory =
  (dir: string): SiteGet =>
  async (path) => {
    try {
      return new Uint8Array(await readFile(join(dir, ...path.split('/').filter((s) => s !== ''))));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  };

let site: string;
let report: Report;

beforeAll(async () => {
  const source = await writeModel(validBundle());
  const results = await verifyPaths([source]);
  const config = withScorecard(Config.parse({}), scorecardFromBytes(new TextEncoder().encode(CARD_TEXT), 'card.json', 'lb.json'));
  report = buildReport(results, config);
  site = await makeTempDir('ledgerboard-claims-site-');
  await writeFile(join(site, 'report.json'), `${canonicalJson(report)}\n`);
  await writeFile(join(site, 'scorecard.json'), CARD_TEXT);
  await mkdir(join(site, 'cohorts'));
  for (const cohort of report.cohorts) await writeFile(join(site, 'cohorts', `${digestHex(cohort.cohort_id)}.json`), canonicalJson(cohort));
  await writeEvidence(publishedOf(report, results).bundles, site);
  // The site publishes the script that built it (verify-site compares it with its own).
  await copyFile(join(REPO_ROOT, 'lib', 'site-verifier', 'verify.mjs'), join(site, 'verify.mjs'));
}, 120_000);

const linesOf = async (dir: string, check: string): Promise<RederiveLine[]> => (await rederiveSite(directory(dir))).lines.filter((l) => l.check === check);

/** Edits the site's report.json with its id re-derived (as a hostile host would). */
async function forge(dir: string, edit: (r: Report) => void): Promise<void> {
  const r = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
  edit(r);
  const { report_id: _id, ...rest } = r;
  await writeFile(join(dir, 'report.json'), `${canonicalJson({ ...r, report_id: selfId(rest as Record<string, unknown>, 'report_id') })}\n`);
}

describe('the faithful site', () => {
  it('has claims to check: the card is in force and one claim is capped', () => {
    expect(report.config.scorecard).toBe(DIGEST);
    const claims = report.cohorts.flatMap((c) => c.claims ?? []);
    expect(claims.length).toBe(2 * report.cohorts.length);
    expect(claims.some((c) => c.reason === 'capped by access tier black_box')).toBe(true);
  });

  it('re-derives: the card checked against the digest, the report byte for byte', async () => {
    const result = await rederiveSite(directory(site));
    const of = (check: string) => result.lines.filter((l) => l.check === check);
    expect(of('scorecard')).toEqual([{ status: 'ok', check: 'scorecard', subject: '/scorecard.json', detail: `the score card the report's config names (${DIGEST}): every claim is re-derived with it` }]);
    expect(of('report').filter((l) => l.status === 'MISMATCH')).toEqual([]);
    expect(of('report')[0]!.detail).toMatch(/^re-derived from the evidence, byte for byte: .*, every verdict, rate, interval, pair, rank range and claim$/);
  });
});

describe('a forged claim or card', () => {
  it('one claim level edited in the report: a MISMATCH naming the cohort and the claim', async () => {
    const dir = await copySite(site);
    const target = report.cohorts.find((c) => c.claims!.some((x) => x.indicator === 'rate' && x.level !== 'strong'))!;
    const index = target.claims!.findIndex((x) => x.indicator === 'rate');
    const was = target.claims![index]!.level;
    await forge(dir, (r) => {
      r.cohorts.find((c) => c.cohort_id === target.cohort_id)!.claims![index]!.level = 'strong';
    });
    const lines = (await linesOf(dir, 'report')).filter((l) => l.status === 'MISMATCH');
    expect(lines.map((l) => l.detail)).toEqual([`cohort ${target.cohort_id} claims[${index}].level: published strong, re-derived ${was}`]);
  });

  it('a claim dropped (claims: null, as if no card): a MISMATCH', async () => {
    const dir = await copySite(site);
    const target = report.cohorts[0]!;
    await forge(dir, (r) => {
      r.cohorts[0]!.claims = null;
    });
    const lines = (await linesOf(dir, 'report')).filter((l) => l.status === 'MISMATCH');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]!.detail).toMatch(new RegExp(`^cohort ${target.cohort_id} claims: published null, re-derived `));
  });

  it('/scorecard.json edited (a ceiling raised): refused, naming both digests; nothing re-derived', async () => {
    const dir = await copySite(site);
    const raised = { ...CARD, tiers: [{ name: 'black_box', ceiling: 'strong' }] };
    await writeFile(join(dir, 'scorecard.json'), JSON.stringify(raised));
    const result = await rederiveSite(directory(dir));
    expect(result.lines).toEqual([
      {
        status: 'MISMATCH',
        check: 'scorecard',
        subject: '/scorecard.json',
        detail: `its digest is ${digestCanonical(raised)}, but the report's config names the score card ${DIGEST}: the claims were not made with this card, so nothing is re-derived`,
      },
    ]);
    expect(result.mismatches).toBe(1);
  });

  it("the card swapped and the report's config digest with it, the claims left as made: the claims re-derived with the served card differ", async () => {
    // (A host that also re-made every claim with its card would re-derive: the card is the publisher's choice, like the config; a signature over the report, FORMAT.md 10, pins it.)
    const dir = await copySite(site);
    const raised = { ...CARD, tiers: [{ name: 'black_box', ceiling: 'strong' }] };
    await writeFile(join(dir, 'scorecard.json'), JSON.stringify(raised));
    await forge(dir, (r) => {
      r.config.scorecard = digestCanonical(raised);
    });
    const details = (await linesOf(dir, 'report')).filter((l) => l.status === 'MISMATCH').map((l) => l.detail);
    expect(details.some((d) => /^cohort sha256:[0-9a-f]{64} claims\[\d+\]\.(level|ceiling): published supported, re-derived strong$/.test(d)), details.join('\n')).toBe(true);
  });

  it('/scorecard.json missing, or not a card: refused', async () => {
    const dir = await copySite(site);
    await rm(join(dir, 'scorecard.json'));
    expect((await rederiveSite(directory(dir))).lines).toEqual([
      { status: 'MISMATCH', check: 'scorecard', subject: '/scorecard.json', detail: `not published, but the report's config names the score card ${DIGEST}: the claims cannot be re-derived, so nothing is` },
    ]);
    await writeFile(join(dir, 'scorecard.json'), '{"schema": "ledgerboard.scorecard.v1", "schema": 1}');
    const [line] = (await rederiveSite(directory(dir))).lines;
    expect(line).toMatchObject({ status: 'MISMATCH', check: 'scorecard' });
    expect(line!.detail).toMatch(/^not strict JSON \(.*\): the report's config names the score card sha256:[0-9a-f]{64}; nothing is re-derived$/);
  });

  it('a card served beside a report that names none: a MISMATCH, the report still re-derived', async () => {
    const dir = await copySite(site);
    const plain = buildReport(await verifyPaths([await writeModel(validBundle())]), Config.parse({}));
    await writeFile(join(dir, 'report.json'), `${canonicalJson(plain)}\n`);
    const result = await rederiveSite(directory(dir));
    expect(result.lines.filter((l) => l.check === 'scorecard')).toEqual([
      { status: 'MISMATCH', check: 'scorecard', subject: '/scorecard.json', detail: "served, but the report's config names no score card: its cohorts carry no claims" },
    ]);
    expect(result.lines.some((l) => l.check === 'report' && l.status === 'ok')).toBe(true);
  });
});

describe('verify.mjs and verify-site, as a stranger runs them', () => {
  interface Run {
    code: number;
    stdout: string;
  }
  const script = (dir: string): Promise<Run> =>
    new Promise((done) => {
      execFile(process.execPath, [join(REPO_ROOT, 'lib', 'site-verifier', 'verify.mjs'), dir], { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 26 }, (error, stdout) => {
        const code = (error as (Error & { code?: unknown }) | null)?.code;
        done({ code: error ? (typeof code === 'number' ? code : -1) : 0, stdout });
      });
    });
  const both = async (dir: string): Promise<Run[]> => Promise.all([script(dir), runCli(['verify-site', dir]).then((r) => ({ code: r.code, stdout: r.stdout }))]);
  const mismatches = (run: Run) => run.stdout.split('\n').filter((l) => l.startsWith('MISMATCH'));

  it('the faithful site: the card checked, 0 mismatches', async () => {
    for (const run of await both(site)) {
      expect(mismatches(run), run.stdout).toEqual([]);
      expect(run.stdout).toContain(`ok  scorecard /scorecard.json the score card the report's config names (${DIGEST}): every claim is re-derived with it`);
      expect(run.code).toBe(0);
    }
  });

  it('one claim level edited: a MISMATCH naming the claim, exit 1', async () => {
    const dir = await copySite(site);
    const target = report.cohorts.find((c) => c.claims!.some((x) => x.indicator === 'rate' && x.level !== 'strong'))!;
    const index = target.claims!.findIndex((x) => x.indicator === 'rate');
    const was = target.claims![index]!.level;
    await forge(dir, (r) => {
      r.cohorts.find((c) => c.cohort_id === target.cohort_id)!.claims![index]!.level = 'strong';
    });
    // The cohort's file is published from the report: forged along with it, so only the re-derivation can tell.
    const forged = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    for (const cohort of forged.cohorts) await writeFile(join(dir, 'cohorts', `${digestHex(cohort.cohort_id)}.json`), canonicalJson(cohort));
    for (const run of await both(dir)) {
      expect(mismatches(run), run.stdout).toContain(`MISMATCH report /report.json cohort ${target.cohort_id} claims[${index}].level: published strong, re-derived ${was}`);
      expect(run.code).toBe(1);
    }
  });

  it('/scorecard.json edited: refused, naming both digests, exit 1', async () => {
    const dir = await copySite(site);
    const raised = { ...CARD, tiers: [{ name: 'black_box', ceiling: 'strong' }] };
    await writeFile(join(dir, 'scorecard.json'), JSON.stringify(raised));
    for (const run of await both(dir)) {
      expect(mismatches(run), run.stdout).toContain(
        `MISMATCH scorecard /scorecard.json its digest is ${digestCanonical(raised)}, but the report's config names the score card ${DIGEST}: the claims were not made with this card, so nothing is re-derived`,
      );
      expect(run.stdout).not.toMatch(/^ok {2}report \/report\.json re-derived/m);
      expect(run.code).toBe(1);
    }
  });
});

describe("the in-browser verifier's worker (its code, run here over a fetch of the site's files)", () => {
  /** Runs the worker's start message against the site at http://site.test/, answering fetches from the directory. */
  async function inWorker(dir: string): Promise<RederiveResult> {
    const messages: { type: string; result?: RederiveResult; message?: string }[] = [];
    const read = directory(dir);
    const fetchImpl = (async (input: string | URL | Request) => {
      const path = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname;
      const bytes = await read(decodeURIComponent(path));
      return bytes === null ? new Response(null, { status: 404 }) : new Response(new Blob([new Uint8Array(bytes)]), { status: 200 });
    }) as typeof fetch;
    await runWorker({ location: { href: 'http://site.test/verify-worker.js' }, postMessage: (m) => void messages.push(m as never), addEventListener: () => {}, fetch: fetchImpl }, {});
    const done = messages.find((m) => m.type === 'done');
    if (done === undefined) throw new Error(`the worker did not finish: ${JSON.stringify(messages.find((m) => m.type === 'error'))}`);
    return done.result!;
  }

  it('the faithful site: the card checked, the report re-derived with it', async () => {
    const result = await inWorker(site);
    expect(result.lines.filter((l) => l.status === 'MISMATCH')).toEqual([]);
    expect(result.lines.find((l) => l.check === 'scorecard')!.status).toBe('ok');
  });

  it('/scorecard.json edited: refused, naming both digests', async () => {
    const dir = await copySite(site);
    const raised = { ...CARD, tiers: [{ name: 'black_box', ceiling: 'strong' }] };
    await writeFile(join(dir, 'scorecard.json'), JSON.stringify(raised));
    const result = await inWorker(dir);
    expect(result.mismatches).toBe(1);
    expect(result.lines[0]!.detail).toBe(`its digest is ${digestCanonical(raised)}, but the report's config names the score card ${DIGEST}: the claims were not made with this card, so nothing is re-derived`);
  });
});
