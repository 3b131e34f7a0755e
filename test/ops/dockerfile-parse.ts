// Just enough of the Dockerfile grammar to check our own file: comments, line continuations, instructions and
// their stages. (No Docker engine exists where the tests run; see test/ops/container.test.ts.)

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
  /** Index of the stage (FROM) the instruction belongs to; -1 before the first FROM. */
  stage: number;
}

export interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): { instructions: Instruction[]; stages: Stage[]; hadolintIgnores: string[] } {
  const instructions: Instruction[] = [];
  const stages: Stage[] = [];
  const hadolintIgnores: string[] = [];
  const lines = text.split('\n');
  let stage = -1;
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let raw = lines[i]!;
    const comment = /^\s*#\s*hadolint ignore=([\w,]+)/.exec(raw);
    if (comment) hadolintIgnores.push(...comment[1]!.split(','));
    if (/^\s*(#|$)/.test(raw)) continue;
    // Continuation lines; comment lines inside a continued instruction are dropped, as Docker does.
    while (/\\\s*$/.test(raw) && i + 1 < lines.length) {
      i++;
      if (/^\s*#/.test(lines[i]!)) continue;
      raw = raw.replace(/\\\s*$/, ' ') + lines[i]!.trim();
    }
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(raw);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: cannot parse "${raw}"`);
    const keyword = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (keyword === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ base: f![1]!, name: f![2], instructions: [] });
      stage = stages.length - 1;
    }
    const ins = { keyword, args, line: start + 1, stage };
    instructions.push(ins);
    if (stage >= 0) stages[stage]!.instructions.push(ins);
  }
  return { instructions, stages, hadolintIgnores };
}
