// A FEN as the server writes it (PDN 3.0: "W:W21,22,K30:B1,2") read into what the board
// draws: who is to move and which piece stands on which square. Notation only, no rule:
// the server sends a FEN for every position of an imported game.

/** readFen("B:W21,K30:B1") -> {toMove: "black", pieces: [["21", "white", false], ...]} */
export function readFen(fen) {
  const [turn = "", ...fields] = String(fen).trim().replace(/\.$/, "").split(":");
  const pieces = [];
  for (const field of fields) {
    const colour = { W: "white", B: "black" }[field.trim().charAt(0).toUpperCase()];
    if (!colour) continue;
    for (const item of field.trim().slice(1).split(",")) {
      const label = item.trim();
      if (!label) continue;
      const king = label[0] === "K" || label[0] === "k";
      pieces.push([king ? label.slice(1) : label, colour, king]);
    }
  }
  return { toMove: turn.trim().toUpperCase() === "B" ? "black" : "white", pieces };
}

/** Whether pasted text is one FEN rather than PDN: a single line like "W:W31,32:B1,2". */
export function looksLikeFen(text) {
  const trimmed = String(text).trim().replace(/^"|"$/g, "");
  return !trimmed.includes("\n") && /^[WB?]?\s*:\s*[WB]/i.test(trimmed);
}

/** The lines around `line` (1 = the first) of `text`: [{n, text, failing}], for showing
 * the reader's sentence beside the line it names. */
export function linesAround(text, line, before = 2, after = 1) {
  const lines = String(text).split("\n");
  const first = Math.max(1, line - before);
  const last = Math.min(lines.length, line + after);
  const out = [];
  for (let n = first; n <= last; n++) out.push({ n, text: lines[n - 1].replace(/\r$/, ""), failing: n === line });
  return out;
}
