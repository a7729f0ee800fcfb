// The analyst panel's pure helpers (no DOM, no translations): how evaluations are
// written and where they are drawn. Unit-tested with node --test.

export const GRAPH_CAP = 800; // hundredths of a man drawn at the graph's edge (8 men)
const WIN_BOUND = 990_000; // engine/evaluation.py WIN_BOUND: a forced win

/** An evaluation as a person reads it: "+1.25" men, or "#3" / "-#4" for a forced end. */
export function formatEval(evaluation, winIn) {
  if (winIn !== null && winIn !== undefined) return winIn > 0 ? `#${winIn}` : `-#${-winIn}`;
  const men = evaluation / 100;
  return `${men > 0 ? "+" : men < 0 ? "−" : "±"}${Math.abs(men).toFixed(2)}`;
}

/** The y of an evaluation on a graph ``height`` high: White's advantage up, capped. */
export function evalY(evaluation, height, cap = GRAPH_CAP) {
  const clamped = Math.abs(evaluation) >= WIN_BOUND ? Math.sign(evaluation) * cap
    : Math.max(-cap, Math.min(cap, evaluation));
  return height / 2 - (clamped / cap) * (height / 2);
}

/** The points of the graph's line: one per position, spread over ``width``. */
export function graphPoints(evals, width, height, cap = GRAPH_CAP) {
  const step = evals.length > 1 ? width / (evals.length - 1) : 0;
  return evals.map((e, i) => [Math.round(i * step * 10) / 10, Math.round(evalY(e, height, cap) * 10) / 10]);
}

/** Reads a newline-delimited JSON body, calling ``onLine`` with each value in order. */
export async function readLines(response, onLine) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    pending += decoder.decode(value || new Uint8Array(), { stream: !done });
    let cut;
    while ((cut = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, cut).trim();
      pending = pending.slice(cut + 1);
      if (line) onLine(JSON.parse(line));
    }
    if (done) break;
  }
  if (pending.trim()) onLine(JSON.parse(pending));
}
