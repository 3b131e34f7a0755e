// A job's view of the worker's decoder when jobs take turns (turns.ts): every onnxruntime run waits for the job's turn
// first, and a bulk job's Loop runs are cut to the steps that fit in yieldMs, so it gives way often. Search is the
// same code either way: a shorter run returns fewer steps, and greedy and beam search already take what a run returns
// (a Loop run of n steps computes exactly what n single steps do), so the output is the same.
import type { BeamRunRequest, DecoderState, GreedyRunRequest, SearchDecoder } from '../runtime/search-decoder.ts';
import type { Turn, Turns } from './turns.ts';

/** A Loop run is worth its feeds from two steps on (search's loopPlan asks for no fewer). */
const MIN_RUN_STEPS = 2;

export function decoderWithTurns(decoder: SearchDecoder, turns: Turns, job: Turn, yieldMs: number): SearchDecoder {
  const bulk = job.priority === 'bulk';
  /** Measured milliseconds per step of this job's runs (its rows, its model); unknown before the first. */
  let stepMs: number | undefined;
  const steps = (asked: number) => {
    if (!bulk) return asked;
    const fit = stepMs === undefined ? MIN_RUN_STEPS : Math.floor(yieldMs / stepMs);
    return Math.min(asked, Math.max(MIN_RUN_STEPS, fit));
  };
  const timed = async <T>(run: () => Promise<T[]>): Promise<T[]> => {
    const t0 = performance.now();
    const out = await run();
    if (out.length) stepMs = (performance.now() - t0) / out.length;
    return out;
  };
  /** One step in the job's turn, timed: what the next bulk run's length is cut by. */
  const timedStep = async <T>(run: () => Promise<T>): Promise<T> => {
    await turns.take(job);
    const t0 = performance.now();
    const out = await run();
    stepMs = performance.now() - t0;
    return out;
  };
  const runs = decoder.runs;
  const greedy = runs?.greedy;
  const beam = runs?.beam;
  return {
    async begin(sources, copies) {
      await turns.take(job);
      return decoder.begin(sources, copies);
    },
    step: (state, tokens, want) => timedStep(() => decoder.step(state, tokens, want)),
    beamStep: (state, tokens, step) => timedStep(() => decoder.beamStep(state, tokens, step)),
    reorder: (state, from) => decoder.reorder(state, from),
    select: (state, rows) => decoder.select(state, rows),
    ...(runs && {
      runs: {
        ...(greedy && {
          async greedy(state: DecoderState, tokens: readonly number[], run: GreedyRunRequest) {
            await turns.take(job);
            return timed(() => greedy(state, tokens, { ...run, steps: steps(run.steps) }));
          },
        }),
        ...(beam && {
          async beam(state: DecoderState, tokens: readonly number[], run: BeamRunRequest) {
            await turns.take(job);
            return timed(() => beam(state, tokens, { ...run, steps: steps(run.steps) }));
          },
        }),
      },
    }),
  };
}
