/**
 * Column-wise storage of the two big evidence files: the attempts of
 * attempts.jsonl and the results of each grades/<n>.json. A million attempts
 * kept as a million JS objects (with their nested objects and strings) cost
 * more in garbage collection and first-touched memory than parsing them did
 * (docs/benchmarks.md, "Scale"). Here every attempt is a row of typed
 * arrays; repeated strings (task, model, agent, patch, grade artifacts) are
 * interned once per file; the strings that are unique per attempt (its id and
 * its two times) are kept as UTF-8 in one buffer.
 *
 * Nothing is lost: {@link AttemptTable.attempt} rebuilds the very value the
 * schema accepted, member order included. A record whose members were not in
 * the schema's order is kept as its object (an exception) and rebuilt as
 * itself. Analysis reads the columns directly (src/analysis/columns.ts).
 */
import { Buffer } from 'node:buffer';
import { CostState, Outcome, type Attempt, type GradeResult, type Grades } from '../schema/index.ts';
import { compareTimes } from './times.ts';
import type { AttemptLine, GradesFile } from './lines.ts';

/** Outcomes by code (the schema's order). */
export const OUTCOME_CODES: readonly Outcome[] = Outcome.options;
/** Cost states by code (the schema's order). */
export const COST_STATE_CODES: readonly CostState[] = CostState.options;
/** Verdicts by code. */
export const VERDICT_CODES = ['pass', 'fail', 'error'] as const;

const OUTCOME_OF = new Map<string, number>(OUTCOME_CODES.map((o, i) => [o, i]));
const COST_STATE_OF = new Map<string, number>(COST_STATE_CODES.map((s, i) => [s, i]));
const VERDICT_OF = new Map<string, number>(VERDICT_CODES.map((v, i) => [v, i]));

/** Member order of an attempt as the schema declares it (and as every writer of this project writes it). */
const ATTEMPT_MEMBERS = [
  'attempt_id',
  'task_id',
  'model',
  'agent',
  'index',
  'observed_model',
  'outcome',
  'started_at',
  'ended_at',
  'wall_seconds',
  'tokens',
  'retries',
  'cost',
  'patch',
] as const;
const RESULT_MEMBERS = ['attempt_id', 'verdict', 'input', 'output', 'receipt'] as const;

/** True when the object's own enumerable members are exactly `names`, in that order. */
function hasMembers(value: object, names: readonly string[]): boolean {
  let i = 0;
  for (const key in value) {
    if (key !== names[i]) return false;
    i++;
  }
  return i === names.length;
}

/** One index per distinct string, in order of first appearance. */
export class Interner {
  private readonly indices = new Map<string, number>();
  readonly values: string[];

  constructor(values: string[] = []) {
    this.values = values;
    values.forEach((v, i) => this.indices.set(v, i));
  }

  private lastValue: string | undefined;
  private lastIndex = -1;

  of(value: string): number {
    // Runs of one value (an attempt's task, its patch) are common: the last answer is checked first.
    if (value === this.lastValue) return this.lastIndex;
    let index = this.indices.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.indices.set(value, index);
    }
    this.lastValue = value;
    this.lastIndex = index;
    return index;
  }
}

type Write = (this: Buffer, string: string, offset: number, length: number) => number;
type Slice = (this: Buffer, start: number, end: number) => string;
const prototype = Buffer.prototype as unknown as { utf8Write?: Write; utf8Slice?: Slice };
const utf8Write: Write = prototype.utf8Write ?? function (this: Buffer, string, offset, length) { return this.write(string, offset, length, 'utf8'); };
const utf8Slice: Slice = prototype.utf8Slice ?? function (this: Buffer, start, end) { return this.toString('utf8', start, end); };

/**
 * Strings kept as UTF-8 bytes in one growing buffer, each found by its
 * offsets: a million short strings without a million heap objects. The
 * strings come from strict UTF-8 decoding, so they hold no lone surrogate and
 * read back exactly.
 */
export class StringStore {
  private buffer: Buffer;
  private used = 0;
  /** offsets[i] .. offsets[i + 1] are the bytes of string i. */
  private offsets: Float64Array;
  count = 0;

  constructor(expected = 64) {
    this.buffer = Buffer.allocUnsafeSlow(Math.max(expected * 24, 256));
    this.offsets = new Float64Array(expected + 1);
  }

  push(value: string): void {
    const room = value.length * 3;
    if (this.used + room > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.used + room));
      this.buffer.copy(grown, 0, 0, this.used);
      this.buffer = grown;
    }
    if (this.count + 1 >= this.offsets.length) {
      const grown = new Float64Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.used += utf8Write.call(this.buffer, value, this.used, room);
    this.offsets[++this.count] = this.used;
  }

  get(i: number): string {
    return utf8Slice.call(this.buffer, this.offsets[i]!, this.offsets[i + 1]!);
  }

  /**
   * A form to post to another thread (see {@link transferablesOf}); with
   * `compact`, copies of the bytes and offsets in use only (for storing: the
   * spare room holds whatever memory the buffer was given).
   */
  toWire(compact = false): StringStoreWire {
    if (compact) return { buffer: this.buffer.subarray(0, this.used).slice(), offsets: this.offsets.slice(0, this.count + 1), used: this.used, count: this.count };
    return { buffer: this.buffer, offsets: this.offsets, used: this.used, count: this.count };
  }

  static fromWire(wire: StringStoreWire): StringStore {
    const store = new StringStore(0);
    store.buffer = Buffer.from(wire.buffer.buffer, wire.buffer.byteOffset, wire.buffer.byteLength);
    store.offsets = wire.offsets;
    store.used = wire.used;
    store.count = wire.count;
    return store;
  }
}

/** A {@link StringStore} as posted between threads. */
export interface StringStoreWire {
  buffer: Uint8Array;
  offsets: Float64Array;
  used: number;
  count: number;
}

/** A column of numbers that grows. */
function grow<T extends Float64Array | Int32Array | Uint8Array>(array: T, size: number): T {
  const grown = new (array.constructor as new (n: number) => T)(Math.max(size, array.length * 2));
  grown.set(array);
  return grown;
}

/** The identity of an attempt's subject as written: model, agent and observed model. */
export interface AttemptIdentity {
  model: string;
  agent: { name: string; version: string };
  observed_model: string;
}

/**
 * The attempts of one attempts.jsonl that passed their schema, in line
 * order, one row each. Columns hold every member; `identity`, `task` and
 * `patch` index the interned tables.
 */
export class AttemptTable {
  count = 0;
  line: Int32Array;
  task: Int32Array;
  identity: Int32Array;
  index: Float64Array;
  outcome: Uint8Array;
  wallSeconds: Float64Array;
  /** NaN when tokens is null. */
  tokensInput: Float64Array;
  tokensOutput: Float64Array;
  retries: Float64Array;
  costState: Uint8Array;
  /** NaN when micros is null. */
  costMicros: Float64Array;
  /** -1 when patch is null. */
  patch: Int32Array;
  tasks = new Interner();
  patches = new Interner();
  identities: AttemptIdentity[] = [];
  /** attempt_id, started_at, ended_at of each row, in that order. */
  private strings: StringStore;
  /** Rows whose record is kept as its object (members not in the schema's order). */
  exceptions = new Map<number, Attempt>();
  /** True when an attempt id appears on more than one row (DUPLICATE_ID). */
  duplicateIds = false;
  /** The latest started_at and ended_at (the first of equal instants, in row order). */
  newestStart: string | null = null;
  newestEnd: string | null = null;
  private readonly identityOf = new Map<string, Map<string, Map<string, Map<string, number>>>>();

  constructor(expected: number) {
    const n = Math.max(expected, 1);
    this.line = new Int32Array(n);
    this.task = new Int32Array(n);
    this.identity = new Int32Array(n);
    this.index = new Float64Array(n);
    this.outcome = new Uint8Array(n);
    this.wallSeconds = new Float64Array(n);
    this.tokensInput = new Float64Array(n);
    this.tokensOutput = new Float64Array(n);
    this.retries = new Float64Array(n);
    this.costState = new Uint8Array(n);
    this.costMicros = new Float64Array(n);
    this.patch = new Int32Array(n);
    this.strings = new StringStore(3 * n);
  }

  /** Adds a record (a value the Attempt schema accepted); returns its row. */
  add(line: number, a: Attempt): number {
    const row = this.count;
    if (row === this.line.length) this.growTo(row + 1);
    this.line[row] = line;
    this.task[row] = this.tasks.of(a.task_id);
    this.identity[row] = this.identityIndex(a.model, a.agent.name, a.agent.version, a.observed_model);
    this.index[row] = a.index;
    this.outcome[row] = OUTCOME_OF.get(a.outcome)!;
    this.wallSeconds[row] = a.wall_seconds;
    this.tokensInput[row] = a.tokens === null ? NaN : a.tokens.input;
    this.tokensOutput[row] = a.tokens === null ? NaN : a.tokens.output;
    this.retries[row] = a.retries;
    this.costState[row] = COST_STATE_OF.get(a.cost.state)!;
    this.costMicros[row] = a.cost.micros === null ? NaN : a.cost.micros;
    this.patch[row] = a.patch === null ? -1 : this.patches.of(a.patch);
    this.strings.push(a.attempt_id);
    this.strings.push(a.started_at);
    this.strings.push(a.ended_at);
    if (this.newestStart === null || compareTimes(a.started_at, this.newestStart) > 0) this.newestStart = a.started_at;
    if (this.newestEnd === null || compareTimes(a.ended_at, this.newestEnd) > 0) this.newestEnd = a.ended_at;
    if (!inSchemaOrder(a)) this.exceptions.set(row, a);
    this.count = row + 1;
    return row;
  }

  attemptId(row: number): string {
    return this.strings.get(3 * row);
  }

  startedAt(row: number): string {
    return this.strings.get(3 * row + 1);
  }

  endedAt(row: number): string {
    return this.strings.get(3 * row + 2);
  }

  /** The record of a row, as the schema accepted it (a new object each call). */
  attempt(row: number): Attempt {
    const kept = this.exceptions.get(row);
    if (kept !== undefined) return kept;
    const identity = this.identities[this.identity[row]!]!;
    const input = this.tokensInput[row]!;
    const micros = this.costMicros[row]!;
    const patch = this.patch[row]!;
    return {
      attempt_id: this.attemptId(row),
      task_id: this.tasks.values[this.task[row]!]!,
      model: identity.model,
      agent: { name: identity.agent.name, version: identity.agent.version },
      index: this.index[row]!,
      observed_model: identity.observed_model,
      outcome: OUTCOME_CODES[this.outcome[row]!]!,
      started_at: this.startedAt(row),
      ended_at: this.endedAt(row),
      wall_seconds: this.wallSeconds[row]!,
      tokens: Number.isNaN(input) ? null : { input, output: this.tokensOutput[row]! },
      retries: this.retries[row]!,
      cost: { state: COST_STATE_CODES[this.costState[row]!]!, micros: Number.isNaN(micros) ? null : micros },
      patch: patch === -1 ? null : this.patches.values[patch]!,
    };
  }

  /** Every row as an {@link AttemptLine}, in line order. */
  lines(): AttemptLine[] {
    const out: AttemptLine[] = new Array(this.count);
    for (let row = 0; row < this.count; row++) out[row] = { line: this.line[row]!, attempt: this.attempt(row) };
    return out;
  }

  /**
   * A form to post to another thread: the columns (transferable), the
   * interned tables and the exceptions. With `compact`, the columns are
   * copies of the rows in use only (for storing; see {@link StringStore.toWire}).
   */
  toWire(compact = false): AttemptTableWire {
    const rows = <T extends Int32Array | Float64Array | Uint8Array>(column: T): T => (compact ? (column.slice(0, this.count) as T) : column);
    return {
      count: this.count,
      columns: {
        line: rows(this.line),
        task: rows(this.task),
        identity: rows(this.identity),
        index: rows(this.index),
        outcome: rows(this.outcome),
        wallSeconds: rows(this.wallSeconds),
        tokensInput: rows(this.tokensInput),
        tokensOutput: rows(this.tokensOutput),
        retries: rows(this.retries),
        costState: rows(this.costState),
        costMicros: rows(this.costMicros),
        patch: rows(this.patch),
      },
      tasks: this.tasks.values,
      patches: this.patches.values,
      identities: this.identities,
      strings: this.strings.toWire(compact),
      exceptions: [...this.exceptions],
      duplicateIds: this.duplicateIds,
      newestStart: this.newestStart,
      newestEnd: this.newestEnd,
    };
  }

  /** The table a {@link AttemptTable.toWire} form describes (read-only use: no more rows are added). */
  static fromWire(wire: AttemptTableWire): AttemptTable {
    const table = new AttemptTable(0);
    Object.assign(table, wire.columns);
    table.count = wire.count;
    table.tasks = new Interner(wire.tasks);
    table.patches = new Interner(wire.patches);
    table.identities = wire.identities;
    table.strings = StringStore.fromWire(wire.strings);
    table.exceptions = new Map(wire.exceptions);
    table.duplicateIds = wire.duplicateIds;
    table.newestStart = wire.newestStart;
    table.newestEnd = wire.newestEnd;
    return table;
  }

  private identityIndex(model: string, name: string, version: string, observed: string): number {
    // Attempts come in runs of one subject: the last identity is checked first (no hashing).
    const last = this.lastIdentity;
    if (last !== null && model === last.model && name === last.agent.name && version === last.agent.version && observed === last.observed_model) {
      return this.lastIdentityIndex;
    }
    const index = this.findIdentity(model, name, version, observed);
    this.lastIdentity = this.identities[index]!;
    this.lastIdentityIndex = index;
    return index;
  }

  private lastIdentity: AttemptIdentity | null = null;
  private lastIdentityIndex = -1;

  private findIdentity(model: string, name: string, version: string, observed: string): number {
    let byName = this.identityOf.get(model);
    if (byName === undefined) this.identityOf.set(model, (byName = new Map()));
    let byVersion = byName.get(name);
    if (byVersion === undefined) byName.set(name, (byVersion = new Map()));
    let byObserved = byVersion.get(version);
    if (byObserved === undefined) byVersion.set(version, (byObserved = new Map()));
    let index = byObserved.get(observed);
    if (index === undefined) {
      index = this.identities.length;
      this.identities.push({ model, agent: { name, version }, observed_model: observed });
      byObserved.set(observed, index);
    }
    return index;
  }

  private growTo(size: number): void {
    this.line = grow(this.line, size);
    this.task = grow(this.task, size);
    this.identity = grow(this.identity, size);
    this.index = grow(this.index, size);
    this.outcome = grow(this.outcome, size);
    this.wallSeconds = grow(this.wallSeconds, size);
    this.tokensInput = grow(this.tokensInput, size);
    this.tokensOutput = grow(this.tokensOutput, size);
    this.retries = grow(this.retries, size);
    this.costState = grow(this.costState, size);
    this.costMicros = grow(this.costMicros, size);
    this.patch = grow(this.patch, size);
  }
}

/** An {@link AttemptTable} as posted between threads. */
export interface AttemptTableWire {
  count: number;
  columns: Pick<
    AttemptTable,
    'line' | 'task' | 'identity' | 'index' | 'outcome' | 'wallSeconds' | 'tokensInput' | 'tokensOutput' | 'retries' | 'costState' | 'costMicros' | 'patch'
  >;
  tasks: string[];
  patches: string[];
  identities: AttemptIdentity[];
  strings: StringStoreWire;
  exceptions: [number, Attempt][];
  duplicateIds: boolean;
  newestStart: string | null;
  newestEnd: string | null;
}

/** The buffers of typed arrays in a posted value, each once: moved to the other thread, not copied. */
export function transferablesOf(value: unknown, out = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) {
    // Only a buffer the view fills alone (not Node's shared pool of small buffers) is moved.
    if (value.buffer instanceof ArrayBuffer && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) out.add(value.buffer);
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map)) {
    for (const v of Object.values(value)) transferablesOf(v, out);
  }
  return [...out];
}

function inSchemaOrder(a: Attempt): boolean {
  return (
    hasMembers(a, ATTEMPT_MEMBERS) &&
    hasMembers(a.agent, AGENT_MEMBERS) &&
    (a.tokens === null || hasMembers(a.tokens, TOKENS_MEMBERS)) &&
    hasMembers(a.cost, COST_MEMBERS)
  );
}
const AGENT_MEMBERS = ['name', 'version'] as const;
const TOKENS_MEMBERS = ['input', 'output'] as const;
const COST_MEMBERS = ['state', 'micros'] as const;

/**
 * One grading generation whose results are kept column-wise: for each result
 * the row of the attempt it names (in the bundle's {@link AttemptTable}),
 * its verdict and its three interned artifact digests. A result whose
 * attempt is not in the table, or whose members are not in the schema's
 * order, is kept as its object.
 */
export class GradesTable {
  readonly path: string;
  generation: number;
  created_at: string;
  grader: Grades['grader'];
  private schema: Grades['schema'];
  count = 0;
  /** Row of the named attempt in `attempts`, or -1. */
  row: Int32Array;
  verdict: Uint8Array;
  private input: Int32Array;
  private output: Int32Array;
  private receipt: Int32Array;
  private digests = new Interner();
  private exceptions = new Map<number, GradeResult>();

  /**
   * An empty table for a generation; `top` gives everything but the
   * results, which are added one by one ({@link GradesTable.add}).
   */
  constructor(
    path: string,
    top: Omit<Grades, 'results'>,
    readonly attempts: AttemptTable,
    expected = 0,
  ) {
    this.path = path;
    this.schema = top.schema;
    this.generation = top.generation;
    this.created_at = top.created_at;
    this.grader = top.grader;
    const n = Math.max(expected, 1);
    this.row = new Int32Array(n);
    this.verdict = new Uint8Array(n);
    this.input = new Int32Array(n);
    this.output = new Int32Array(n);
    this.receipt = new Int32Array(n);
  }

  /** The table of a whole generation; `rows[i]` is the row in `attempts` of the attempt result i names, or -1. */
  static of(path: string, grades: Grades, attempts: AttemptTable, rows: Int32Array): GradesTable {
    const table = new GradesTable(path, grades, attempts, grades.results.length);
    grades.results.forEach((r, i) => table.add(r, rows[i]!));
    return table;
  }

  /** Sets everything but the results (for a table whose results were added before the rest of the file was read). */
  setTop(top: Omit<Grades, 'results'>): void {
    this.schema = top.schema;
    this.generation = top.generation;
    this.created_at = top.created_at;
    this.grader = top.grader;
  }

  /** Adds the next result (a value the GradeResult schema accepted), naming the attempt on `row` (-1: none). */
  add(r: GradeResult, row: number): void {
    const i = this.count;
    if (i === this.row.length) {
      this.row = grow(this.row, i + 1);
      this.verdict = grow(this.verdict, i + 1);
      this.input = grow(this.input, i + 1);
      this.output = grow(this.output, i + 1);
      this.receipt = grow(this.receipt, i + 1);
    }
    this.row[i] = row;
    this.verdict[i] = VERDICT_OF.get(r.verdict)!;
    this.input[i] = this.digests.of(r.input);
    this.output[i] = this.digests.of(r.output);
    this.receipt[i] = this.digests.of(r.receipt);
    if (row === -1 || !hasMembers(r, RESULT_MEMBERS)) this.exceptions.set(i, r);
    this.count = i + 1;
  }

  /** The attempt id a result names. */
  attemptId(i: number): string {
    const kept = this.exceptions.get(i);
    return kept !== undefined ? kept.attempt_id : this.attempts.attemptId(this.row[i]!);
  }

  /** The result at `i`, as the schema accepted it. */
  result(i: number): GradeResult {
    const kept = this.exceptions.get(i);
    if (kept !== undefined) return kept;
    const digests = this.digests.values;
    return {
      attempt_id: this.attempts.attemptId(this.row[i]!),
      verdict: VERDICT_CODES[this.verdict[i]!]!,
      input: digests[this.input[i]!]!,
      output: digests[this.output[i]!]!,
      receipt: digests[this.receipt[i]!]!,
    };
  }

  /** A form to post to another thread (the attempts table is posted apart); with `compact`, see {@link AttemptTable.toWire}. */
  toWire(compact = false): GradesTableWire {
    const { path, schema, generation, created_at, grader, count } = this;
    const rows = <T extends Int32Array | Uint8Array>(column: T): T => (compact ? (column.slice(0, count) as T) : column);
    const columns = { row: rows(this.row), verdict: rows(this.verdict), input: rows(this.input), output: rows(this.output), receipt: rows(this.receipt) };
    return { path, schema, generation, created_at, grader, count, columns, digests: this.digests.values, exceptions: [...this.exceptions] };
  }

  /** The table a {@link GradesTable.toWire} form describes, over the bundle's attempts table. */
  static fromWire(wire: GradesTableWire, attempts: AttemptTable): GradesTable {
    const table = new GradesTable(wire.path, wire, attempts);
    const fields = table as unknown as Record<string, unknown>;
    Object.assign(fields, wire.columns);
    table.count = wire.count;
    fields['digests'] = new Interner(wire.digests);
    fields['exceptions'] = new Map(wire.exceptions);
    return table;
  }

  /** The generation as the schema accepted it. */
  file(): GradesFile {
    const results: GradeResult[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) results[i] = this.result(i);
    return {
      path: this.path,
      grades: {
        schema: this.schema,
        generation: this.generation,
        created_at: this.created_at,
        grader: this.grader,
        results,
      },
    };
  }
}

/** A {@link GradesTable} as posted between threads. */
export interface GradesTableWire {
  path: string;
  schema: Grades['schema'];
  generation: number;
  created_at: string;
  grader: Grades['grader'];
  count: number;
  columns: { row: Int32Array; verdict: Uint8Array; input: Int32Array; output: Int32Array; receipt: Int32Array };
  digests: string[];
  exceptions: [number, GradeResult][];
}
