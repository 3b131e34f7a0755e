// A job's view of the worker's decoder when jobs take turns (turns.ts): every onnxruntime run waits for the job's turn
// first, and a bulk job's Loop runs are cut to the steps that fit in yieldMs, so it gives way often. An interactive
// job that has held the worker for its budget (DRAGOMAN_INTERACTIVE_BUDGET_MS) goes on as a bulk one. Search is the
// same code either way: a shorter run returns fewer steps, and greedy and beam search already take what a run returns
// (a Loop run of n steps computes exactly what n single steps do), so the output is the same.
import type { BeamRunRequest, DecoderState, GreedyRunRequest, SearchDecoder } from '../runtime/search-decoder.ts';
import type { Turn, Turns } from './turns.ts';

/** A Loop run is worth its feeds from two steps on (search's loopPlan asks for no fewer). */
const MIN_RUN_STEPS = 2;

export interface TurnBudget {
  yieldMs: number;
  interactiveBudgetMs: number;
  /** Called once, when an interactive job becomes bulk work (the pool then sends the worker interactive work again). */
  demoted: () => void;
}

export function decoderWithTurns(decoder: SearchDecoder, turns: Turns, job: Turn, budget: TurnBudget): SearchDecoder {
  const { yieldMs } = budget;
  /** Measured milliseconds per step of this job's runs (its rows, its model); unknown before the first. */
  let stepMs: number | undefined;
  /** Worker time this job's runs took. */
  let heldMs = 0;
  const held = (ms: number) => {
    heldMs += ms;
    if (job.priority === 'interactive' && heldMs > budget.interactiveBudgetMs) {
      turns.demote(job);
      budget.demoted();
    }
  };
  const steps = (asked: number) => {
    if (job.priority !== 'bulk') return asked;
    const fit = stepMs === undefined ? MIN_RUN_STEPS : Math.floor(turns.bulkRunMs(yieldMs) / stepMs);
    return Math.min(asked, Math.max(MIN_RUN_STEPS, fit));
  };
  const timed = async <T>(run: () => Promise<T[]>): Promise<T[]> => {
    const t0 = performance.now();
    const out = await run();
    const ms = performance.now() - t0;
    if (out.length) stepMs = ms / out.length;
    held(ms);
    return out;
  };
  /** One step in the job's turn, timed: what the next bulk run's length is cut by. */
  const timedStep = async <T>(run: () => Promise<T>): Promise<T> => {
    await turns.take(job);
    const t0 = performance.now();
    const out = await run();
    stepMs = performance.now() - t0;
    held(stepMs);
    return out;
  };
  const runs = decoder.runs;
  const greedy = runs?.greedy;
  const beam = runs?.beam;
  return {
    async begin(sources, copies) {
      await turns.take(job);
      const t0 = performance.now();
      const state = await decoder.begin(sources, copies);
      held(performance.now() - t0);
      return state;
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
