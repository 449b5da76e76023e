/**
 * How the authoring tools (freeze, seal) refuse their input: every problem
 * found, each with its file and, where known, line and column, so one run
 * shows everything to fix. The CLI prints them and exits 2; a refusal to
 * overwrite an existing file is a different error (exit 1).
 */
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** One problem with an input file. Line and column are 1-based. */
export interface InputProblem {
  file: string;
  line?: number;
  column?: number;
  message: string;
}

/** `plan.yaml:12:3: message`, `ledger.jsonl:4: message` or `aliases.yaml: message`. */
export function formatProblem(problem: InputProblem): string {
  const where = problem.line === undefined ? problem.file : problem.column === undefined ? `${problem.file}:${problem.line}` : `${problem.file}:${problem.line}:${problem.column}`;
  return `${where}: ${problem.message}`;
}

/** The input cannot be frozen or sealed as it is (exit 2): every problem found. */
export class AuthorInputError extends LedgerboardError {
  static override readonly code: string = 'AUTHOR_INPUT';
  static override readonly exitStatus = EXIT_STATUS.usage;
  readonly problems: readonly InputProblem[];

  constructor(problems: readonly InputProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'AuthorInputError';
    this.problems = problems;
  }
}

/** A create-only write found its target already there (exit 1): nothing was overwritten. */
export class AlreadyExistsError extends LedgerboardError {
  static override readonly code: string = 'ALREADY_EXISTS';
  static override readonly exitStatus = EXIT_STATUS.notVerified;
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.name = 'AlreadyExistsError';
    this.path = path;
  }
}

/** Throws an AuthorInputError when there is any problem. */
export function refuseIfAny(problems: readonly InputProblem[]): void {
  if (problems.length > 0) throw new AuthorInputError(problems);
}

/** Throws an AuthorInputError with these problems. */
export function refuse(...problems: InputProblem[]): never {
  throw new AuthorInputError(problems);
}

/** Most problems printed by a refusal; the rest are counted. */
export const MAX_PROBLEMS_SHOWN = 50;

/** The text a command prints when it refuses its input: a headline, then one problem per line. */
export function refusalText(command: string, error: AuthorInputError, safe: (text: string) => string): string {
  const { problems } = error;
  const lines = [`ledgerboard ${command}: refused (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was written`];
  for (const problem of problems.slice(0, MAX_PROBLEMS_SHOWN)) lines.push(`  ${safe(formatProblem(problem))}`);
  if (problems.length > MAX_PROBLEMS_SHOWN) lines.push(`  ... and ${problems.length - MAX_PROBLEMS_SHOWN} more`);
  return `${lines.join('\n')}\n`;
}
