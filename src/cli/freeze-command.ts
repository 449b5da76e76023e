/**
 * `ledgerboard freeze <plan.yaml> --ledger <ledger.jsonl> [--aliases FILE] (-o DIR | --dry-run) [--anchor URL]...`
 * (issue #6), and `ledgerboard freeze --anchor-only DIR --anchor URL...` (FORMAT.md 12: anchoring a plan frozen before).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_YAML_BYTES } from '../author/strict-yaml.ts';
import { freezePlan, writeFrozenPlan, type InputFile } from '../author/freeze.ts';
import { anchorPlan, anchorUrlProblem, frozenPlanId } from '../author/anchor.ts';
import { exists } from '../author/create-only.ts';
import { AlreadyExistsError, AuthorInputError, refusalText } from '../author/problems.ts';
import { EXIT, UsageError, type Command, type CliIo } from './command.ts';
import { terminalSafe } from './terminal.ts';
import { appendFreezeLog, checkFreezeLogForAppend, FreezeLogFileError, freezeLogLineOf, frozenPlanOf } from '../author/freeze-log.ts';
import { freezeLogLineText, type FreezeLogLine } from '../schema/freeze-log.ts';
import { freezeLogPathOf, loadConfigFile } from '../config/config.ts';
import { shellQuote } from '../site/views/shell-quote.ts';

export const freezeCommand: Command = {
  summary: 'freeze a YAML plan into plan.json (create-only)',
  usage: `Usage: ledgerboard freeze <plan.yaml> --ledger <ledger.jsonl> [--aliases FILE] (-o DIR | --dry-run) [--anchor URL]... [--log FILE | --config FILE]
       ledgerboard freeze --anchor-only DIR --anchor URL... [--log FILE | --config FILE]

Freezes a human-written YAML plan into plan.json (FORMAT.md section 3):
resolves alias selectors (":mini") to exact model identities through the
aliases file, pins the ledger (its SHA-256 and task count), computes the
per-attempt ceiling floor(aggregate_micros / (tasks x subjects x attempts))
and derives plan_id. Writes DIR/plan.json and a byte-for-byte copy of the
ledger as DIR/ledger.jsonl, create-only: an existing plan.json is never
overwritten.

The YAML is strict: an unknown key is refused with a did-you-mean; so are
duplicate keys, anchors and aliases, tags, several documents, and numbers
that are not integers (money is in integer micros). created_at comes from
the plan, else SOURCE_DATE_EPOCH, else the clock. Refused too: an alias with
no entry, two selectors resolving to one subject, an aggregate that gives a
dispatch zero micros, an invalid ledger (with its line).
The plan format, the aliases file and a worked example: docs/harness-authors.md.

Options:
  --ledger FILE    the task ledger (JSONL, FORMAT.md section 4) the plan pins
  --aliases FILE   YAML mapping from alias to exact model identity, e.g.
                   ":mini": acme/mini-2026-08-01
  -o, --out DIR    the bundle directory to write into (created if needed)
  --dry-run        print plan.json to stdout and write nothing
  --anchor URL     after writing plan.json, ask this RFC 3161 time-stamp
                   authority (http: or https:; repeat for several) for a
                   token over the plan id and write it to
                   DIR/anchors/<host>.tsr for seal to list (FORMAT.md 12;
                   docs/publishing.md "Anchoring a freeze")
  --anchor-only DIR  ask the --anchor authorities for a plan frozen before
                   (DIR/plan.json; refused once DIR is sealed)
  --log FILE       the freeze log to append to (default: the config's
                   freeze_log)
  --config FILE    the config whose freeze_log names the log (default
                   ./ledgerboard.config.json when present)

The freeze log (docs/publishing.md "The freeze log"): every plan frozen is
appended to it as one line (plan id, created_at, ledger digest, title, and
the digest of the first token an --anchor authority gave, else null);
--anchor-only appends a line for the plan when a token came. The log is
only ever appended to (O_APPEND, one write, fsync): a log whose last line is
cut short or a line does not parse is refused before the plan is written
(exit 2, nothing written). Without --log and without a config freeze_log,
the plan is frozen and not logged (said on stderr). --dry-run logs nothing.

Exit: 0 frozen (or printed) and every authority's token written; 1 DIR/plan.json
already exists, or the plan is frozen but an authority gave no token (the
plan stays written: ask again with --anchor-only DIR), or the plan is frozen
but its line could not be appended to the log; 2 usage error, refused input
or a freeze log that cannot be appended to.`,
  options: {
    ledger: { type: 'string' },
    aliases: { type: 'string' },
    out: { type: 'string', short: 'o' },
    'dry-run': { type: 'boolean' },
    anchor: { type: 'string', multiple: true },
    'anchor-only': { type: 'string' },
    log: { type: 'string' },
    config: { type: 'string' },
  },
  async run(values, positionals, io) {
    const anchors = anchorUrls(values.anchor as unknown as string[] | undefined);
    if (values['anchor-only'] !== undefined) return anchorOnly(values, positionals, anchors, io);
    if (positionals.length !== 1) throw new UsageError(`freeze takes one plan file (got ${positionals.length})`);
    const ledgerPath = values.ledger;
    if (typeof ledgerPath !== 'string') throw new UsageError('freeze needs --ledger <ledger.jsonl>');
    const dryRun = values['dry-run'] === true;
    const out = values.out;
    if (!dryRun && typeof out !== 'string') throw new UsageError('freeze needs -o <dir> (or --dry-run to print the plan and write nothing)');
    if (dryRun && typeof out === 'string') throw new UsageError('--dry-run writes nothing: give either -o <dir> or --dry-run');
    if (dryRun && anchors.length > 0) throw new UsageError('--dry-run writes nothing, so there is no plan to anchor: give -o <dir> with --anchor');
    const aliasesPath = typeof values.aliases === 'string' ? values.aliases : undefined;

    // The log to append to, checked before anything is written (a broken log: exit 2, nothing written). --dry-run logs nothing.
    const log = dryRun ? null : await freezeLogTarget(values);
    if (log !== null) await checkFreezeLogForAppend(log);

    const planFile = await readInput(positionals[0]!, MAX_YAML_BYTES);
    const ledgerFile = await readInput(ledgerPath);
    const aliasesFile = aliasesPath === undefined ? undefined : await readInput(aliasesPath, MAX_YAML_BYTES);
    try {
      const frozen = freezePlan({
        plan: planFile,
        ledger: ledgerFile,
        ...(aliasesFile ? { aliases: aliasesFile } : {}),
        ...(process.env.SOURCE_DATE_EPOCH !== undefined ? { sourceDateEpoch: process.env.SOURCE_DATE_EPOCH } : {}),
      });
      const { plan } = frozen;
      const budget = plan.budget!;
      const summary =
        `${plan.ledger.tasks} tasks x ${plan.subjects.length} subjects x ${plan.attempts} attempts = ${frozen.dispatches} dispatches; ` +
        `per-attempt ceiling ${budget.per_attempt_micros} micros ${budget.currency} (of ${budget.aggregate_micros})`;
      for (const warning of frozen.warnings) io.stderr.write(`ledgerboard freeze: warning: ${terminalSafe(warning)}\n`);
      if (dryRun) {
        io.stdout.write(frozen.planBytes);
        io.stderr.write(`dry run: plan ${plan.plan_id} (${summary}); nothing written\n`);
        return EXIT.ok;
      }
      const written = await writeFrozenPlan(out as string, frozen);
      io.stdout.write(
        [
          `froze plan ${plan.plan_id}`,
          `  ${terminalSafe(written.planPath)}: ${summary}`,
          `  ${terminalSafe(written.ledgerPath)}: ${plan.ledger.digest}, ${written.ledgerWritten ? 'copied byte for byte' : 'already there with these bytes'}`,
          `re-derive the id: jq -cjS 'del(.plan_id)' ${shellQuote(written.planPath)} | sha256sum`,
          '',
        ].join('\n'),
      );
      const anchored = anchors.length === 0 ? { status: EXIT.ok, token: null } : await anchorAndSay(out as string, plan.plan_id, anchors, io, true);
      // After the authorities answered: the line carries the first token's digest (null when none came).
      const logged = await logFrozen(log, freezeLogLineOf(plan, anchored.token), io);
      return anchored.status === EXIT.ok ? logged : anchored.status;
    } catch (error) {
      const status = refusal(error, io);
      if (error instanceof AlreadyExistsError && anchors.length > 0 && (await exists(join(out as string, 'plan.json')))) {
        io.stderr.write(`ledgerboard freeze: nothing was anchored; to anchor the plan already there: ${terminalSafe(`ledgerboard freeze --anchor-only ${shellQuote(out as string)} ${anchors.map((url) => `--anchor ${shellQuote(url)}`).join(' ')}`)}\n`);
      }
      return status;
    }
  },
};

/** The --anchor URLs, each checked (http: or https:) before anything is written. */
function anchorUrls(given: string[] | undefined): string[] {
  const urls = given ?? [];
  for (const url of urls) {
    const problem = anchorUrlProblem(url);
    if (problem !== null) throw new UsageError(problem);
  }
  return urls;
}

/** `freeze --anchor-only DIR --anchor URL...`: anchors a plan frozen before. */
async function anchorOnly(values: Record<string, string | boolean | undefined>, positionals: string[], anchors: string[], io: CliIo): Promise<number> {
  const dir = values['anchor-only'] as string;
  if (positionals.length > 0) throw new UsageError(`--anchor-only anchors the plan already in ${dir}: give no plan file (got ${positionals.length})`);
  for (const option of ['ledger', 'aliases', 'out', 'dry-run']) {
    if (values[option] !== undefined) throw new UsageError(`--anchor-only freezes nothing: --${option} cannot go with it`);
  }
  if (anchors.length === 0) throw new UsageError('--anchor-only needs at least one --anchor <URL>');
  const log = await freezeLogTarget(values);
  if (log !== null) await checkFreezeLogForAppend(log);
  let planId: string;
  let plan: Awaited<ReturnType<typeof frozenPlanOf>> | null;
  try {
    planId = await frozenPlanId(dir);
    // The members its log line takes, read (and checked) only when there is a log to append to.
    plan = log === null ? null : await frozenPlanOf(dir);
  } catch (error) {
    return refusal(error, io);
  }
  io.stdout.write(`anchoring plan ${planId} (${terminalSafe(dir)}/plan.json)\n`);
  const anchored = await anchorAndSay(dir, planId, anchors, io, false);
  // A new line for the plan, with the new token's digest; no token, nothing new to log.
  if (anchored.token === null) {
    if (log !== null) io.stderr.write(`not logged: no token came, so the freeze log ${terminalSafe(log)} gets no line\n`);
    return anchored.status;
  }
  const logged = plan === null ? await logFrozen(null, null, io) : await logFrozen(log, freezeLogLineOf(plan, anchored.token), io);
  return anchored.status === EXIT.ok ? logged : anchored.status;
}

/**
 * The freeze log to append to: --log FILE, else the freeze_log of --config
 * FILE (or of ./ledgerboard.config.json when present), resolved against the
 * config's directory; null when neither names one.
 */
async function freezeLogTarget(values: Record<string, string | boolean | undefined>): Promise<string | null> {
  if (typeof values.log === 'string') {
    if (typeof values.config === 'string') throw new UsageError('--log names the freeze log, so --config is not read for it: give one of them');
    return values.log;
  }
  return freezeLogPathOf(await loadConfigFile(typeof values.config === 'string' ? values.config : undefined));
}

/** Appends the plan's line to the log (or says it is not logged). Exit 0, or 1 when the plan is frozen but the line could not be appended. */
async function logFrozen(log: string | null, line: FreezeLogLine | null, io: CliIo): Promise<number> {
  if (log === null || line === null) {
    io.stderr.write('not logged: no freeze log (--log FILE or the config\'s freeze_log)\n');
    return EXIT.ok;
  }
  try {
    await appendFreezeLog(log, line);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!(error instanceof FreezeLogFileError) && typeof code !== 'string') throw error;
    const why = error instanceof FreezeLogFileError ? error.message : `${terminalSafe(log)} cannot be written (${code})`;
    io.stderr.write(`ledgerboard freeze: the plan is frozen, but not logged: ${terminalSafe(why)}. Once the log is fixed, append its line by hand: ${terminalSafe(JSON.stringify(freezeLogLineText(line)))}\n`);
    return EXIT.notVerified;
  }
  io.stdout.write(`logged: ${terminalSafe(log)} (line ${line.anchor_digest === null ? 'without an anchor' : `with the anchor ${line.anchor_digest}`})\n`);
  return EXIT.ok;
}

/**
 * Asks every authority, printing progress on stderr ("asking <host> ...
 * done"), each token written on stdout and each failure on stderr. Exit 0
 * when every authority gave a token, else 1 (the plan stays frozen).
 */
async function anchorAndSay(dir: string, planId: string, urls: string[], io: CliIo, justFrozen: boolean): Promise<{ status: number; token: Uint8Array | null }> {
  const outcomes = await anchorPlan(dir, planId, urls, (text) => io.stderr.write(terminalSafe(text.replace(/\n$/, '')) + (text.endsWith('\n') ? '\n' : '')));
  const hex = planId.slice('sha256:'.length);
  for (const outcome of outcomes) {
    if (!outcome.ok) continue;
    io.stdout.write(
      `  ${terminalSafe(outcome.path)}: time-stamp by ${terminalSafe(outcome.host)} at ${outcome.genTime} (${outcome.status}); seal lists it\n` +
        `  check it: openssl ts -verify -digest ${hex} -in ${shellQuote(outcome.path)} -CAfile <the authority's root.pem>\n`,
    );
  }
  // The first token got (in --anchor order): the one the freeze log's line names.
  const first = outcomes.find((o) => o.ok);
  const token = first === undefined || !first.ok ? null : first.token;
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length === 0) return { status: EXIT.ok, token };
  for (const outcome of failed) io.stderr.write(`ledgerboard freeze: ${terminalSafe(outcome.host)} gave no token: ${terminalSafe(outcome.message)}\n`);
  const retry = `ledgerboard freeze --anchor-only ${shellQuote(dir)} ${failed.map((o) => `--anchor ${shellQuote(o.url)}`).join(' ')}`;
  io.stderr.write(
    `ledgerboard freeze: ${failed.length} of ${outcomes.length} authorit${outcomes.length === 1 ? 'y' : 'ies'} gave no token. ` +
      (justFrozen
        ? `The plan is frozen and written all the same (${terminalSafe(join(dir, 'plan.json'))}); freeze --anchor cannot run again on a frozen plan. Ask again with: ${terminalSafe(retry)}\n`
        : `Nothing was written for ${failed.length === 1 ? 'it' : 'them'}; ask again with: ${terminalSafe(retry)}\n`),
  );
  return { status: EXIT.notVerified, token };
}

function refusal(error: unknown, io: CliIo): number {
  if (error instanceof AuthorInputError) {
    io.stderr.write(refusalText('freeze', error, terminalSafe));
    return EXIT.usage;
  }
  if (error instanceof AlreadyExistsError) {
    io.stderr.write(`ledgerboard freeze: ${terminalSafe(error.message)}\n`);
    return EXIT.notVerified;
  }
  throw error;
}

/** Reads an input file; a missing, unreadable or oversized file is a usage error. */
async function readInput(path: string, maxBytes?: number): Promise<InputFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${path}${code === 'ENOENT' ? ': no such file' : code === 'EISDIR' ? ': is a directory' : ` (${code ?? 'error'})`}`);
  }
  if (maxBytes !== undefined && bytes.length > maxBytes) throw new UsageError(`${path} is ${bytes.length} bytes; at most ${maxBytes} are accepted`);
  return { file: path, bytes };
}
