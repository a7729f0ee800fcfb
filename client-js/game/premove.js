// A premove is a path the player clicked during the opponent's turn: a piece and
// its landing squares. When the turn comes it is played only if exactly one of the
// legal moves the server listed fits it; otherwise it is dropped.
import { matchMoves } from "../board.js";

/** The legal move `path` ([from, ...landings, to]) names, or null. */
export function resolvePremove(legal, path) {
  if (!path || path.length < 2) return null;
  const fits = matchMoves(legal ?? [], path[0], path.slice(1, -1), path.at(-1));
  return fits.length === 1 ? fits[0].move : null;
}

/**
 * The premove after a click on `label` (null: off the board): a click on one of your
 * pieces starts one from it (or, on the piece just chosen, cancels), a click on any
 * other square adds a landing, as the position may have changed by the time it counts.
 */
export function nextPremove(premove, label, isOwn) {
  if (label === null) return null;
  if (isOwn(label)) return premove?.length === 1 && premove[0] === label ? null : [label];
  return premove ? [...premove, label] : null;
}
