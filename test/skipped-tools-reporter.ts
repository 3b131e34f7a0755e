// After every run, one line per missing tool: how many tests it kept from running and how to install it (the notes
// of test/tools.ts, on a skipped test or in the name of its skipped suite). Nothing is printed when nothing was.
import type { Reporter, TestModule } from 'vitest/node';

const NOTE = /needs (\S+) \(([^)]*)\)/;

export default class SkippedToolsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const counts = new Map<string, { tool: string; install: string; tests: number }>();
    for (const m of modules) {
      for (const test of m.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        const found = NOTE.exec(result.note ?? '') ?? NOTE.exec(test.fullName);
        if (!found) continue;
        const entry = counts.get(found[1]!) ?? { tool: found[1]!, install: found[2]!, tests: 0 };
        entry.tests++;
        counts.set(found[1]!, entry);
      }
    }
    if (counts.size === 0) return;
    const lines = [...counts.values()].map((c) => `  skipped: ${c.tests} test${c.tests === 1 ? '' : 's'} need${c.tests === 1 ? 's' : ''} ${c.tool} (${c.install})`);
    process.stdout.write(`\nTools missing on this machine (CI=true makes these failures; README, "Development"):\n${lines.join('\n')}\n`);
  }
}
