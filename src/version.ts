/** The generator's name and version, as recorded in reports. Keep in step with package.json (a test checks). */
export const NAME = 'ledgerboard';
export const VERSION = '0.1.0';
