/** `ledgerboard freeze <plan.yaml> --ledger <ledger.jsonl> [--aliases FILE] (-o DIR | --dry-run)` (issue #6). */
import { readFile } from 'node:fs/promises';
import { MAX_YAML_BYTES } from '../author/strict-yaml.ts';
import { freezePlan, writeFrozenPlan, type InputFile } from '../author/freeze.ts';
import { AlreadyExistsError, AuthorInputError, refusalText } from '../author/problems.ts';
import { EXIT, UsageError, type Command, type CliIo } from './command.ts';
import { terminalSafe } from './terminal.ts';
import { shellQuote } from '../site/views/shell-quote.ts';

export const freezeCommand: Command = {
  summary: 'freeze a YAML plan into plan.json (create-only)',
  usage: `Usage: ledgerboard freeze <plan.yaml> --ledger <ledger.jsonl> [--aliases FILE] (-o DIR | --dry-run)

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

Exit: 0 frozen (or printed), 1 DIR/plan.json already exists, 2 usage error or refused input.`,
  options: {
    ledger: { type: 'string' },
    aliases: { type: 'string' },
    out: { type: 'string', short: 'o' },
    'dry-run': { type: 'boolean' },
  },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw new UsageError(`freeze takes one plan file (got ${positionals.length})`);
    const ledgerPath = values.ledger;
    if (typeof ledgerPath !== 'string') throw new UsageError('freeze needs --ledger <ledger.jsonl>');
    const dryRun = values['dry-run'] === true;
    const out = values.out;
    if (!dryRun && typeof out !== 'string') throw new UsageError('freeze needs -o <dir> (or --dry-run to print the plan and write nothing)');
    if (dryRun && typeof out === 'string') throw new UsageError('--dry-run writes nothing: give either -o <dir> or --dry-run');
    const aliasesPath = typeof values.aliases === 'string' ? values.aliases : undefined;

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
      return EXIT.ok;
    } catch (error) {
      return refusal(error, io);
    }
  },
};

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
