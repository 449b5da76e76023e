// A vitest reporter that records what each test file cost in full: the
// environment and runner set-up, importing the file (collect), and its tests
// *with their hooks* (a beforeAll that builds a site counts), plus the wall
// clock when the file started and ended. vitest's JSON reporter measures a
// file from its first test, so a build in beforeAll was invisible there.
//
//   npx vitest run --reporter=dot --reporter=./scripts/module-times-reporter.mjs
//   (writes test-module-times.json, or $LEDGERBOARD_MODULE_TIMES)
//   node scripts/test-times.mjs test-module-times.json [N]
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class ModuleTimesReporter {
  modules = [];
  started = 0;
  onInit(vitest) {
    this.root = vitest.config.root;
    this.started = Date.now();
  }
  onTestModuleStart(testModule) {
    this.modules.push({ module: testModule, start: Date.now() });
  }
  onTestModuleEnd(testModule) {
    const entry = this.modules.find((m) => m.module === testModule);
    if (entry !== undefined) entry.end = Date.now();
  }
  onTestRunEnd() {
    const files = this.modules.map(({ module, start, end }) => {
      const d = module.diagnostic();
      let tests = 0;
      for (const _ of module.children.allTests()) tests += 1;
      return {
        file: relative(this.root, module.moduleId),
        tests,
        state: module.state(),
        setup_s: round((d.environmentSetupDuration + d.prepareDuration + d.setupDuration) / 1000),
        collect_s: round(d.collectDuration / 1000),
        run_s: round(d.duration / 1000),
        start_s: round((start - this.started) / 1000),
        end_s: round(((end ?? Date.now()) - this.started) / 1000),
      };
    });
    files.sort((a, b) => (a.file < b.file ? -1 : 1));
    const out = process.env.LEDGERBOARD_MODULE_TIMES ?? 'test-module-times.json';
    writeFileSync(out, JSON.stringify({ wall_s: round((Date.now() - this.started) / 1000), files }, null, 1) + '\n');
  }
}

function round(x) {
  return Math.round(x * 10) / 10;
}
