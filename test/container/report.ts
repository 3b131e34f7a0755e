// The container test's checks as lines a person reads: "ok - what: detail" / "not ok - what: why", then the
// closing "N passed, N failed" line.
let passed = 0;
let failed = 0;

export function say(line: string) {
  console.log(line);
}

export class CheckFailed extends Error {}

export function expectThat(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

/** One named check: its function returns the detail to print, or throws what went wrong. */
export async function check(name: string, fn: () => Promise<string | void> | string | void): Promise<boolean> {
  try {
    const detail = await fn();
    passed++;
    say(`ok - ${name}${detail ? `: ${detail}` : ''}`);
    return true;
  } catch (err) {
    failed++;
    say(`not ok - ${name}: ${(err as Error).message}`);
    return false;
  }
}

export function summary(): number {
  say(`${passed} passed, ${failed} failed`);
  return failed;
}
