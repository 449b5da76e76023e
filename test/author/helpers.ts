/** Shared by the authoring tests: run the CLI in-process with captured output, and scratch copies of the example inputs. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const exampleDir = join(root, 'examples', 'harness');

/**
 * A config that names no freeze log. The repository's own config (the demo's,
 * ./ledgerboard.config.json, where these tests run) names the demo's freeze
 * log, content/history/freeze-log.jsonl, and `freeze` appends to the log of
 * ./ledgerboard.config.json when given neither --log nor --config: a test
 * must never append to the demo's evidence, so `cli` gives `freeze` this
 * config unless the test names a log or a config itself.
 */
export const NO_FREEZE_LOG_CONFIG = join(root, 'test', 'fixtures', 'config', 'no-freeze-log.json');

/** Runs `ledgerboard <args>` in-process; returns the exit code and what it printed. */
export async function cli(given: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const names = (option: string) => given.some((arg) => arg === option || arg.startsWith(`${option}=`));
  const args = given[0] === 'freeze' && !names('--log') && !names('--config') && !names('--help') ? [...given, '--config', NO_FREEZE_LOG_CONFIG] : given;
  const capture = () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => chunks.push(Buffer.from(chunk)));
    Object.defineProperty(stream, 'isTTY', { value: false });
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const out = capture();
  const err = capture();
  const code = await main(args, { stdout: out.stream, stderr: err.stream });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out.text(), stderr: err.text() };
}

/** Temporary directories, removed by `cleanup`. */
export class Scratch {
  private readonly dirs: string[] = [];

  async dir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'ledgerboard-author-'));
    this.dirs.push(dir);
    return dir;
  }

  async cleanup(): Promise<void> {
    for (const dir of this.dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  }
}

/** The example's inputs, read once. */
export async function exampleInputs(): Promise<{ plan: string; aliases: string; ledger: Buffer }> {
  return {
    plan: await readFile(join(exampleDir, 'plan.yaml'), 'utf8'),
    aliases: await readFile(join(exampleDir, 'aliases.yaml'), 'utf8'),
    ledger: await readFile(join(exampleDir, 'ledger.jsonl')),
  };
}

/** Writes plan.yaml, aliases.yaml and ledger.jsonl into a directory; returns their paths. */
export async function writeInputs(
  dir: string,
  inputs: { plan: string; aliases: string; ledger: Buffer | string },
): Promise<{ plan: string; aliases: string; ledger: string }> {
  const paths = { plan: join(dir, 'plan.yaml'), aliases: join(dir, 'aliases.yaml'), ledger: join(dir, 'ledger.jsonl') };
  await writeFile(paths.plan, inputs.plan);
  await writeFile(paths.aliases, inputs.aliases);
  await writeFile(paths.ledger, inputs.ledger);
  return paths;
}

/** Replaces exactly one occurrence of `from` (so a fixture edit can never silently miss). */
export function replaceOnce(text: string, from: string | RegExp, to: string): string {
  const count = typeof from === 'string' ? text.split(from).length - 1 : (text.match(new RegExp(from.source, `${from.flags.replace('g', '')}g`)) ?? []).length;
  if (count !== 1) throw new Error(`fixture edit: ${String(from)} occurs ${count} times`);
  return text.replace(from, to);
}
