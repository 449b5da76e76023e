/** Runs the CLI in-process with captured stdout and stderr. */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.ts';

/** What one CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ledgerboard <args>`; `isTTY` makes stdout and stderr look like a terminal (colour, progress). */
export async function runCli(args: readonly string[], isTTY = false): Promise<CliRun> {
  const capture = () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    Object.defineProperty(stream, 'isTTY', { value: isTTY });
    return { stream, text: () => text };
  };
  const out = capture();
  const err = capture();
  const code = await main(args, { stdout: out.stream, stderr: err.stream });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out.text(), stderr: err.text() };
}
