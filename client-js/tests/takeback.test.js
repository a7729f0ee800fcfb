// The game page's model on takebacks, names and the first-move countdown (issue 30).
import { test } from "node:test";
import assert from "node:assert/strict";
import { GameModel } from "../game/model.js";

function state(fields = {}) {
  return {
    t: "state", v: 9, you: "white", status: "playing", side_to_move: "black",
    moves: ["9-14", "23-18", "11-15", "18-11"], pieces: [], legal: [], players: { white: { name: null } },
    clocks: null, clock: null, draw_offer: null, rematch_offer: null, rematch: null, claimable: false,
    rated: false, takeback_offer: null, abort_at: null, now: 1_000_000, ...fields,
  };
}

test("the takeback buttons follow what the server says this seat may send", () => {
  const model = new GameModel();
  model.fold(state({ may: { white: ["draw_offer", "takeback_ask", "resign"], black: [] } }));
  assert.equal(model.may("takeback_ask"), true);
  model.fold({ t: "takeback_offered", v: 10, by: "black", may: { white: ["takeback_accept", "takeback_decline"] } });
  assert.equal(model.state.takeback_offer, "black");
  assert.equal(model.may("takeback_ask"), false);
  assert.equal(model.may("takeback_accept"), true);
});

test("a taken-back event cuts the moves and the known positions back and ends any review", () => {
  const model = new GameModel();
  model.fold(state({ takeback_offer: "white", draw_offer: "black" }));
  model.addPlies([0, 1, 2, 3, 4].map((ply) => ({ ply, fen: `f${ply}`, pieces: [] })));
  model.review(3);
  const effects = model.fold({
    t: "taken_back", v: 10, by: "white", plies: 2, ply: 2, fen: "f2", side_to_move: "black",
    pieces: [["15", "black", false]], legal: [{ notation: "11-15", path: ["11", "15"], captured: [] }],
    clocks: null, last: { path: ["23", "18"], captured: [] }, abort_at: null,
  }, 0);
  const s = model.state;
  assert.deepEqual(s.moves, ["9-14", "23-18"]);
  assert.equal(s.takeback_offer, null);
  assert.equal(s.draw_offer, null);
  assert.deepEqual(s.legal, []); // Black's moves: this page is White's
  assert.equal(model.plies.length, 3);
  assert.equal(model.reviewing, null);
  assert.ok(effects.some((e) => e.flash === "game.taken_back"));
});

test("the first-move countdown runs on the server's clock", () => {
  const model = new GameModel();
  // This browser's clock reads 500 when the server's reads 1_000_000.
  model.fold(state({ moves: [], side_to_move: "black", abort_at: 1_030_000, now: 1_000_000 }), 0, 500);
  assert.equal(model.abortLeft(500), 30_000);
  assert.equal(model.abortLeft(10_500), 20_000);
  model.fold({ t: "over", v: 10, result: null, reason: "no_first_move", clocks: null }, 0, 600);
  assert.equal(model.abortLeft(700), null);
});

test("a player who comes back with a new name is shown under it", () => {
  const model = new GameModel();
  model.fold(state());
  model.fold({ t: "presence", v: 10, side: "white", present: true, name: "Ada" }, 0);
  assert.equal(model.state.players.white.name, "Ada");
});
