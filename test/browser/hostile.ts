/**
 * Browser-test helper: evidence bundles whose every publisher-controlled
 * string is hostile. The strings come from the third-party corpora read at test
 * time (RSnake's XSS cheat sheet and the Big List of Naughty Strings) plus a
 * few hand-made probes, and go into the plan title, the subjects' selector,
 * model and agent name (kept consistent between the plan, every attempt's
 * model and observed_model, so the bundle stays verified), the ledger name,
 * task ids (ledger and attempts), failing_assertion, license, the harness
 * name and version, the grader's profile, id and version (in the plan and in
 * generation 1), the isolation and session-topology texts, listed file names
 * and NOTES.md.
 */
import { readFile } from 'node:fs/promises';
import { validBundle, type BundleModel } from '../helpers/bundle-builder.ts';

/** The corpora, as lists of non-empty strings. */
export interface HostileCorpora {
  /** XSS-RSNAKE.txt, one payload a line. */
  xss: string[];
  /** blns.json. */
  blns: string[];
}

/** Reads the corpora (test/fixtures/, see its SOURCES.md). */
export async function readCorpora(): Promise<HostileCorpora> {
  const xssText = await readFile(new URL('../fixtures/xss/XSS-RSNAKE.txt', import.meta.url), 'utf8');
  const blns = JSON.parse(await readFile(new URL('../fixtures/blns/blns.json', import.meta.url), 'utf8')) as unknown;
  if (!Array.isArray(blns) || !blns.every((s) => typeof s === 'string')) throw new Error('blns.json is not an array of strings');
  const xss = xssText.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (xss.length < 50 || blns.length < 400) throw new Error(`the corpora look truncated: ${xss.length} XSS lines, ${blns.length} BLNS strings`);
  return { xss, blns: (blns as string[]).filter((s) => s !== '') };
}

/** The site title of the hostile config (shown on every page). */
export const HOSTILE_SITE_TITLE = 'ledger<script>alert(1)</script>board "\' --> <img src=x onerror=alert(2)>';

/** The DOM-clobbering id the notes try to take. */
export const CLOBBER_IDS = ['main', 'notes', 'cite-heading'];

/**
 * Closes every kind of CommonMark HTML block (script/pre/style/textarea, comment, processing
 * instruction, declaration, CDATA), so one unclosed payload does not swallow the rest of the notes.
 */
const CLOSE_HTML_BLOCKS = '</script></pre></style></textarea> --> ?> ]]> >';

/** NOTES.md: Markdown and raw HTML XSS payloads, then `extra` lines (one paragraph each, each followed by a line closing any HTML block it opened). */
export function hostileNotes(tag: string, extra: readonly string[]): string {
  return [
    `# Notes <script>alert("notes-heading-${tag}")</script>`,
    '',
    '<script>alert("raw script block")</script>',
    '',
    '<div onclick="alert(1)" onmouseover="alert(1)">raw div block</div>',
    '',
    '<iframe src="javascript:alert(1)"></iframe>',
    '',
    '<object data="data:text/html,<script>alert(1)</script>"></object>',
    '',
    '<embed src="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">',
    '',
    '<svg onload=alert(1)><circle r=1 /></svg>',
    '',
    '<style>body { display: none }</style>',
    '',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '',
    '<base href="javascript:alert(1)//">',
    '',
    '<form action="javascript:alert(1)"><button>go</button></form>',
    '',
    '<details open ontoggle=alert(1)><summary>x</summary></details>',
    '',
    `<a id="main" name="main">clobber main</a> <a id="notes">clobber notes</a> <form id="cite-heading"></form>`,
    '',
    `Inline: <img src=x onerror=alert(1)> and <a href="javascript:alert(1)">raw link</a> and <b onmouseover=alert(1)>bold</b>.`,
    '',
    '[x](javascript:alert(1)) [X](JaVaScRiPt:alert(1)) [sp]( javascript:alert(1)) [ent](&#106;avascript:alert(1)) [tab](java&#x09;script:alert(1))',
    '',
    '[d](data:text/html,<script>alert(1)</script>) [d64](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [vb](vbscript:msgbox(1))',
    '',
    '![img](javascript:alert(1)) ![imgdata](data:image/svg+xml,<svg onload=alert(1)>) ![ok](https://example.com/x.png "title\\" onerror=\\"alert(1)")',
    '',
    '[ref link][evil] and <javascript:alert(1)> and <https://example.com/ok>',
    '',
    '[evil]: javascript:alert(1)',
    '',
    '```html',
    '<script>alert("in a code block")</script>',
    '```',
    '',
    '`<img src=x onerror=alert(1)>`',
    '',
    ...extra.flatMap((line) => [line, '', CLOSE_HTML_BLOCKS, '']),
  ].join('\n');
}

/** What one hostile bundle holds. */
export interface HostileSpec {
  tag: string;
  title: string;
  ledgerName: string;
  /** Three distinct task ids. */
  tasks: [string, string, string];
  candidate: { selector: string; model: string; agent: string };
  baseline: { selector: string; model: string; agent: string };
  agentVersion: string;
  harnessName: string;
  harnessVersion: string;
  /** The plan's grader (generation 1 uses it too). */
  grader: { profile: string; id: string; version: string };
  isolation: string;
  sessionTopology: string;
  failingAssertion: string;
  license: string;
  /** Extra listed files: bundle path -> content. */
  files: Record<string, string>;
  notes: string;
}

/** A valid bundle model carrying a spec's strings, consistently everywhere they are repeated. */
export function hostileModel(spec: HostileSpec): BundleModel {
  const model = validBundle();
  const plan = model.plan;
  plan.title = spec.title;
  plan.ledger.name = spec.ledgerName;
  plan.harness.name = spec.harnessName;
  plan.harness.version = spec.harnessVersion;
  const oldGrader = { ...plan.grader };
  plan.grader = { ...plan.grader, ...spec.grader };
  for (const generation of model.grades) {
    const g = generation.value.grader;
    if (g.id === oldGrader.id && g.version === oldGrader.version) generation.value.grader = { ...g, id: spec.grader.id, version: spec.grader.version };
  }
  plan.environment.isolation = spec.isolation;
  plan.environment.session_topology = spec.sessionTopology;

  const taskMap = new Map<string, string>();
  model.ledger.forEach((task, i) => {
    const id = spec.tasks[i]!;
    taskMap.set(task.task_id, id);
    task.task_id = id;
    task.license = spec.license;
    if (task.failing_assertion !== null) task.failing_assertion = spec.failingAssertion;
  });

  const subjectMap = new Map<string, { model: string; agent: { name: string; version: string } }>();
  for (const subject of plan.subjects) {
    const next = subject.role === 'candidate' ? spec.candidate : spec.baseline;
    const agent = { name: next.agent, version: spec.agentVersion };
    subjectMap.set(subject.model, { model: next.model, agent });
    subject.selector = next.selector;
    subject.model = next.model;
    subject.agent = { ...agent };
  }
  for (const attempt of model.attempts) {
    const task = taskMap.get(attempt.task_id);
    const subject = subjectMap.get(attempt.model);
    if (task === undefined || subject === undefined) throw new Error(`attempt ${attempt.attempt_id} does not match the model`);
    attempt.task_id = task;
    attempt.model = subject.model;
    attempt.observed_model = subject.model;
    attempt.agent = { ...subject.agent };
  }
  for (const [path, content] of Object.entries(spec.files)) model.extra.set(path, new TextEncoder().encode(content));
  model.notes = spec.notes;
  return model;
}

/** True when a string holds a Unicode noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF), which evidence JSON refuses (FORMAT.md). */
export function hasNoncharacter(text: string): boolean {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe) return true;
  }
  return false;
}

/** Splits a list into `n` nearly equal consecutive chunks. */
export function chunks<T>(items: readonly T[], n: number): T[][] {
  const size = Math.ceil(items.length / n);
  return Array.from({ length: n }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/**
 * The hostile specs: `count` bundles. Bundle i carries the i-th chunk of both
 * corpora in its title and notes, and single payloads in every other field.
 * Bundles 0 and 1 share their ledger and subjects but differ in harness name
 * and isolation (so the incompatibilities page lists hostile differences);
 * every bundle's ledger has the same hostile name (so the ledgers-that-share-
 * a-name list shows it).
 */
export function hostileSpecs(corpora: HostileCorpora, count: number): HostileSpec[] {
  // JSON evidence refuses noncharacters (the bundle would be invalid): those strings go to NOTES.md only.
  const xss = corpora.xss.filter((t) => !hasNoncharacter(t));
  const blns = corpora.blns.filter((t) => !hasNoncharacter(t));
  const pick = (list: readonly string[], i: number): string => list[i % list.length]!;
  const xssChunks = chunks(xss, count);
  const blnsChunks = chunks(blns, count);
  const ledgerName = `widget<svg onload=alert("ledger")>bugs`;
  return Array.from({ length: count }, (_, i) => {
    const tag = `h${i}`;
    const shared = i === 1 ? 0 : i; // bundle 1 reuses bundle 0's ledger and subjects
    const s = (n: number): string => pick(xss, shared * 11 + n);
    const b = (n: number): string => pick(blns, shared * 37 + n * 3 + 100);
    return {
      tag,
      title: [`<script>alert("title-${tag}")</script> ${tag}`, ...xssChunks[i]!, ...blnsChunks[i]!].join(' ⁂ '),
      ledgerName,
      tasks: [`<img src=x onerror=alert("task-${shared}")>`, s(1), b(1)],
      candidate: { selector: `:<b onclick=alert(1)>sel-${shared}`, model: `<script>alert("model-${shared}")</script>${s(2)}`, agent: s(3) },
      baseline: { selector: b(2), model: `javascript:alert("baseline-${shared}")//${b(3)}`, agent: `"><img src=x onerror=alert("agent-${shared}")>` },
      agentVersion: b(4),
      harnessName: i === 1 ? `harness<iframe src=javascript:alert(1)>-${i}` : `harness<script>alert(${i})</script>`,
      harnessVersion: `1.0<img src=x onerror=alert("harness-version-${shared}")>`,
      grader: { profile: s(8), id: `oracle<script>alert("grader-${shared}")</script>`, version: b(9) },
      isolation: i === 1 ? `<object data="data:text/html,x">iso-${i}` : s(5),
      sessionTopology: b(5),
      failingAssertion: s(6),
      license: `MIT<script>alert("license")</script>${b(6)}`,
      files: {
        [`logs/<img src=x onerror=alert(${i})>.txt`]: `${s(7)}\n`,
        'javascript:alert(1)': 'a file named like a javascript: URL\n',
        [`logs/"'><svg onload=alert(${i})> ${b(7).replace(/[/\\\0]/g, '_').slice(0, 60) || 'x'}.txt`]: `${b(8)}\n`,
      },
      notes: hostileNotes(tag, [...chunks(corpora.xss, count)[i]!, ...chunks(corpora.blns, count)[i]!]),
    };
  });
}

/**
 * A bundle that is not verified (an attempt observed another, hostile model),
 * so the rejected page renders its hostile title and a finding quoting the
 * hostile model name.
 */
export function rejectedSpec(corpora: HostileCorpora): { spec: HostileSpec; observed: string } {
  const spec = hostileSpecs(corpora, 1)[0]!;
  return {
    spec: {
      ...spec,
      tag: 'rejected',
      title: `<script>alert("rejected-title")</script><img src=x onerror=alert("rejected")> rejected`,
      ledgerName: 'rejected<script>alert(1)</script>ledger',
      harnessName: 'rejected-harness<script>alert(1)</script>',
      notes: hostileNotes('rejected', corpora.xss.slice(0, 10)),
    },
    observed: '<img src=x onerror=alert("observed_model")><script>alert("observed")</script>',
  };
}
