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
