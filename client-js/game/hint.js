// The line that says why a clicked piece may not move. The reason is the server's
// (`forced` of the position: a code and the most pieces a capture takes); this only
// puts it in words, with the squares that can capture from the listed moves.

/** The sentence for a click on `square`, or null when there is nothing to explain. */
export function forcedHint(forced, legal, square, t) {
  if (!forced || !legal?.length) return null;
  const starts = [...new Set(legal.map((m) => m.path[0]))];
  if (starts.includes(square)) return null;
  const squares = listSquares(starts, t);
  const key = forced.code === "capture" && starts.length === 1 ? "hints.capture_one" : `hints.${forced.code}`;
  return t(key, { n: forced.pieces, squares, count: starts.length });
}

/** "22", "22 and 26", "22, 26 and 31" in the page's language. */
export function listSquares(squares, t) {
  if (squares.length <= 1) return squares.join("");
  return `${squares.slice(0, -1).join(", ")} ${t("hints.and")} ${squares.at(-1)}`;
}
