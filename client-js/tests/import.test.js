// The import page's pure helpers: a FEN read into pieces, FEN or PDN, lines around an error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { linesAround, looksLikeFen, readFen } from "../import/fen.js";

test("a FEN gives the side to move and every piece, kings marked", () => {
  assert.deepEqual(readFen("B:W21,K30:B1,k2"), {
    toMove: "black",
    pieces: [["21", "white", false], ["30", "white", true], ["1", "black", false], ["2", "black", true]],
  });
  assert.deepEqual(readFen("W:Wa2,Kd4:B").pieces, [["a2", "white", false], ["d4", "white", true]]);
  assert.equal(readFen("W:W:B").pieces.length, 0);
});

test("one line of the FEN form is a FEN; anything else is read as PDN", () => {
  assert.ok(looksLikeFen("W:W31,32:B1,2"));
  assert.ok(looksLikeFen('  "B:W21:B1"\n'));
  assert.ok(!looksLikeFen('[FEN "W:W31:B1"]\n1. 31-27 *'));
  assert.ok(!looksLikeFen("1. 32-28 19-23 *"));
});

test("the lines around an error mark the one the reader names", () => {
  const around = linesAround("a\nb\r\nc\nd\ne", 3);
  assert.deepEqual(around.map((l) => [l.n, l.text, l.failing]),
    [[1, "a", false], [2, "b", false], [3, "c", true], [4, "d", false]]);
  assert.deepEqual(linesAround("only", 1).map((l) => l.n), [1]);
});
