// The game page's model, fed the messages a server sends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatClock, GameModel, ordering, ratingText, turnTitle } from "../game/model.js";

const EVENTS = new Set(["state", "moved", "over", "joined", "draw_offered"]);
const MOVE = { notation: "32-28", path: ["32", "28"], captured: [] };

function state(fields = {}) {
  return {
    t: "state", v: 5, you: "white", status: "playing", side_to_move: "white", moves: [],
    pieces: [["32", "white", false], ["19", "black", false]], legal: [MOVE], players: {},
    clocks: { white: 60000, black: 60000, running: "white" }, clock: { initial_ms: 60000 },
    draw_offer: null, rematch_offer: null, rematch: null, claimable: false, ...fields,
  };
}

function moved(ply, fields = {}) {
  return {
    t: "moved", v: 5 + ply, ply, by: ply % 2 ? "white" : "black", notation: "32-28", path: ["32", "28"],
    captured: [], fen: `W:W28:B19#${ply}`, side_to_move: ply % 2 ? "black" : "white",
    pieces: [["28", "white", false], ["19", "black", false]], legal: [], clocks: null, ...fields,
  };
}

test("clock text: minutes and seconds, hours, tenths under ten seconds, never negative", () => {
  assert.equal(formatClock(65000), "1:05");
  assert.equal(formatClock(3723000), "1:02:03");
  assert.equal(formatClock(9950), "9.9");
  assert.equal(formatClock(-5), "0.0");
});

test("a rating shows its provisional mark and its change", () => {
  assert.equal(ratingText({ rating: 1500, provisional: true }), "1500?");
  assert.equal(ratingText({ rating: 1512, provisional: false, ratingDiff: 12 }), "1512 +12");
  assert.equal(ratingText({ rating: 1488, ratingDiff: -12 }), "1488 −12");
  assert.equal(ratingText(null), null);
});

test("events are used in version order: old ones ignored, a gap asks for a resync", () => {
  assert.equal(ordering(null, { t: "moved", v: 3 }, EVENTS), "ignore");
  assert.equal(ordering(5, { t: "moved", v: 5 }, EVENTS), "ignore");
  assert.equal(ordering(5, { t: "moved", v: 6 }, EVENTS), "apply");
  assert.equal(ordering(5, { t: "moved", v: 8 }, EVENTS), "gap");
  assert.equal(ordering(5, { t: "state", v: 2 }, EVENTS), "apply");
  assert.equal(ordering(5, { t: "pong" }, EVENTS), "apply");
});

test("a move folds into the state and its position is remembered for review", () => {
  const model = new GameModel();
  model.fold(state(), 0);
  assert.equal(model.myTurn, true);
  const effects = model.fold(moved(1), 100);
  assert.deepEqual(model.state.moves, ["32-28"]);
  assert.equal(model.state.side_to_move, "black");
  assert.deepEqual(model.state.legal, []);
  assert.equal(model.myTurn, false);
  assert.deepEqual(effects, [{ sound: "move" }, { turn: false }]);
  assert.equal(model.plies[1].fen, "W:W28:B19#1");
});

test("looking back keeps its ply when a move arrives, and shows the past position", () => {
  const model = new GameModel();
  model.fold(state(), 0);
  model.addPlies([{ ply: 0, fen: "start", pieces: [["32", "white", false]], last: null, forced: null }]);
  model.fold(moved(1), 0);
  assert.equal(model.review(0), 0);
  model.fold(moved(2), 0);
  assert.equal(model.shownPly, 0);
  assert.equal(model.ply, 2);
  const view = model.boardView();
  assert.equal(view.past, true);
  assert.deepEqual(view.moves, []);
  assert.deepEqual(view.pieces, [["32", "white", false]]);
  assert.equal(model.review(99), null); // past the end is the live game
  assert.equal(model.boardView().past, false);
});

test("the clock that runs counts down from the moment the state arrived", () => {
  const model = new GameModel();
  model.fold(state(), 1000);
  assert.equal(model.clockLeft("white", 3500), 57500);
  assert.equal(model.clockLeft("black", 3500), 60000);
  assert.equal(model.lowTime(9000), true);
  assert.equal(model.lowTime(20000), false);
});

test("what the seat may send is the server's list, renewed by any event that carries one", () => {
  const model = new GameModel();
  const may = { white: ["rematch_offer"], black: ["rematch_offer"] };
  model.fold(state({ status: "finished", result: "black", players: { white: {}, black: {} }, may }), 0);
  assert.equal(model.may("rematch_offer"), true);
  assert.equal(model.may("resign"), false);
  model.fold({ t: "rematch_offered", v: 6, by: "black", may: { white: ["rematch_accept", "rematch_decline"], black: [] } }, 0);
  assert.equal(model.may("rematch_offer"), false);
  assert.equal(model.may("rematch_accept"), true);
  // An event without `may` leaves the lists as they were.
  model.fold({ t: "chat", v: 7, channel: "players", by: "black", text: "gg" }, 0);
  assert.equal(model.may("rematch_accept"), true);
});

test("a spectator may send none of the seats' commands", () => {
  const model = new GameModel();
  model.fold(state({ you: null, may: { white: ["resign"], black: ["resign"] } }), 0);
  assert.equal(model.may("resign"), false);
});

test("the claim countdown runs to the server's claim_at, on the server's clock", () => {
  const model = new GameModel();
  model.fold(state({ now: 50_000, may: { white: ["resign"], black: ["resign"] } }), 0, 10_000);
  assert.equal(model.claimIn(10_000), null);
  model.fold({ t: "presence", v: 6, side: "black", present: false, claim_at: 53_000 }, 0);
  assert.equal(model.claimIn(10_000), 3000); // the server is 40 s ahead of this browser
  assert.equal(model.claimIn(12_500), 500);
  model.fold({ t: "claimable", v: 7, by: "white", may: { white: ["claim_victory", "claim_draw"] } }, 0);
  assert.equal(model.claimIn(13_000), null);
  assert.equal(model.may("claim_victory"), true);
  model.fold({ t: "presence", v: 8, side: "black", present: true, claim_at: null }, 0);
  assert.equal(model.claimIn(13_000), null);
});

test("before both sides have moved only the first-move countdown shows, not the claim's", () => {
  // Black joined a game whose creator never connected: White must move first or the
  // game is aborted, and nobody can claim a game that never started.
  const model = new GameModel();
  model.fold(state({
    you: "black", now: 50_000, abort_at: 80_000,
    players: { white: { name: "Ada", present: false, claim_at: 45_000 }, black: { name: "Bo", present: true } },
  }), 0, 10_000);
  assert.equal(model.abortLeft(10_000), 30_000);
  assert.equal(model.claimIn(10_000), null);
  // White moved, then left; Black's first move starts the game and the claim counts on.
  model.fold(moved(1, { abort_at: 90_000 }), 0);
  model.fold({ t: "presence", v: 7, side: "white", present: false, claim_at: 85_000 }, 0);
  assert.equal(model.claimIn(12_000), null);
  model.fold({ ...moved(2), v: 8, by: "black", side_to_move: "white", abort_at: null }, 0);
  assert.equal(model.abortLeft(14_000), null);
  assert.equal(model.claimIn(14_000), 31_000);
});

test("the tab title says whose turn it is", () => {
  assert.equal(turnTitle(true, "Brazilian · Kondavo", "Your turn"), "● Your turn — Brazilian · Kondavo");
  assert.equal(turnTitle(false, "Brazilian · Kondavo", "Your turn"), "Brazilian · Kondavo");
});

test("an opponent is said to be back only after being seen leaving", () => {
  const model = new GameModel();
  model.fold(state({ players: { white: {}, black: { present: false } } }), 0);
  assert.deepEqual(model.fold({ t: "presence", v: 6, side: "black", present: true }, 10), []);
  model.fold({ t: "presence", v: 7, side: "black", present: false }, 20);
  assert.deepEqual(model.fold({ t: "presence", v: 8, side: "black", present: true }, 30), [{ flash: "game.opponent_back" }]);
});
