/** `ledgerboard preview [--out DIR] [--port N] [--host H] [--config FILE]`: serve a built site locally at its base path. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { basePathOf, loadConfigFile } from '../config/config.ts';
import { serveSite } from '../site/build/serve.ts';
import { EXIT, UsageError, type Command } from './command.ts';

/** The port preview listens on by default (Astro's, so the default site_url works as it is). */
export const DEFAULT_PREVIEW_PORT = 4321;

export const previewCommand: Command = {
  summary: 'serve the built site locally at its base path',
  usage: `Usage: ledgerboard preview [--out DIR] [--port N] [--host HOST] [--config FILE]

Serves the site that \`ledgerboard build\` wrote (default dist/) on this
machine, under the path of the config's site_url, as a plain static host
would, and prints its URL. Stop it with Ctrl-C. Files are streamed (a big
blob is never read whole; one Range is honoured), a path through a symbolic
link is never followed, and a request whose Host header does not name this
server (127.0.0.1, localhost or [::1] with the port, the --host given, or
any address of this machine when --host is 0.0.0.0 or ::) gets 421: a page
of another site whose name is made to resolve here cannot read the preview.

Options:
  --out DIR      the built site (default dist)
  --port N       the port (default ${DEFAULT_PREVIEW_PORT}; 0 picks a free one)
  --host HOST    the address to listen on (default 127.0.0.1: this machine only)
  --config FILE  the config whose site_url gives the base path (default ./ledgerboard.config.json)

Exit: 0 when stopped, 2 on a usage error (no site there, the port taken).`,
  options: { out: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError('preview takes no positional arguments (the site is --out DIR)');
    const { config } = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const root = typeof values.out === 'string' ? values.out : 'dist';
    if (!existsSync(join(root, 'index.html'))) throw new UsageError(`no built site in ${root} (no index.html): run \`ledgerboard build\` first`);
    const portText = typeof values.port === 'string' ? values.port : String(DEFAULT_PREVIEW_PORT);
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got ${JSON.stringify(portText)}`);
    const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
    const basePath = basePathOf(config);
    let server;
    try {
      server = await serveSite({ root, basePath, host, port: Number(portText) });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${portText} on ${host} is in use: stop what holds it, or pick another with --port (0 picks a free one)`);
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${host}: not an address of this machine`);
      throw error;
    }
    io.stdout.write(`serving ${root} at ${server.url} (Ctrl-C to stop)\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await server.close();
    return EXIT.ok;
  },
};
