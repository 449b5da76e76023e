/** A config that cannot be used: the message names the file and every problem (a usage error, exit 2). Kept apart from config.ts so the CLI's entry point can map it without loading the config's schema. */
export class ConfigError extends Error {}
