/** Progress on stderr for long work: a self-overwriting line, only on a TTY and only past a few items. */

const MIN_ITEMS = 5;

/** Returns a progress callback writing "<verb> 3/10 bundles" to a TTY stream, or undefined when not a TTY. */
export function progressReporter(stream: NodeJS.WriteStream, verb: string): ((done: number, total: number) => void) | undefined {
  if (stream.isTTY !== true) return undefined;
  return (done, total) => {
    if (total < MIN_ITEMS) return;
    stream.write(`\r${verb} ${done}/${total} bundles`);
    if (done === total) stream.write('\r\u001b[K');
  };
}
