// Turning clicks into one of the listed moves, premoves, and the compulsory capture line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { matchMoves, resolveClick } from "../board.js";
import { forcedHint, listSquares } from "../game/hint.js";
import { resolvePremove } from "../game/premove.js";
import { moveLabel } from "../game/model.js";

const STEP = { notation: "32-28", path: ["32", "28"], captured: [] };
const OTHER_STEP = { notation: "32-27", path: ["32", "27"], captured: [] };
// Two captures from 22 ending on the same square by different routes.
const ROUTE_A = { notation: "22x4", path: ["22", "13", "4"], captured: ["18", "9"] };
const ROUTE_B = { notation: "22x4", path: ["22", "15", "4"], captured: ["17", "10"] };
const t = (key, vars = {}) => `${key}:${JSON.stringify(vars)}`.replace("hints.and:{}", "and");

test("moves match by start, landings in order and end", () => {
  assert.equal(matchMoves([STEP, OTHER_STEP], "32").length, 2);
  assert.equal(matchMoves([STEP, OTHER_STEP], "32", [], "28").length, 1);
  assert.equal(matchMoves([ROUTE_A, ROUTE_B], "22", ["15"]).length, 1);
  assert.equal(matchMoves([STEP], "31").length, 0);
});

test("a click on the only landing square sends the move; a shared end asks for the route", () => {
  assert.deepEqual(resolveClick([STEP, OTHER_STEP], { from: "32", via: [], to: null }, "28"), { send: STEP });
  assert.deepEqual(resolveClick([ROUTE_A, ROUTE_B], { from: "22", via: [], to: null }, "4"),
    { selection: { from: "22", via: [], to: "4" } });
  assert.deepEqual(resolveClick([ROUTE_A, ROUTE_B], { from: "22", via: [], to: "4" }, "13"), { send: ROUTE_A });
  assert.deepEqual(resolveClick([STEP], { from: "32", via: [], to: null }, "1"), { reset: true });
});

test("a premove is played when exactly one listed move fits it, else dropped", () => {
  assert.equal(resolvePremove([STEP, OTHER_STEP], ["32", "28"]), STEP);
  assert.equal(resolvePremove([STEP], ["32", "27"]), null);
  assert.equal(resolvePremove([ROUTE_A, ROUTE_B], ["22", "4"]), null);
  assert.equal(resolvePremove([ROUTE_A, ROUTE_B], ["22", "15", "4"]), ROUTE_B);
  assert.equal(resolvePremove([STEP], ["32"]), null);
});

test("a click on a piece that may not move names the pieces that must capture", () => {
  const legal = [ROUTE_A, { notation: "26x17", path: ["26", "17"], captured: ["21"] }];
  const hint = forcedHint({ code: "capture", pieces: 1 }, legal, "31", t);
  assert.equal(hint, 'hints.capture:{"n":1,"squares":"22 and 26","count":2}');
  assert.equal(forcedHint({ code: "most_pieces", pieces: 3 }, [ROUTE_A], "31", t),
    'hints.most_pieces:{"n":3,"squares":"22","count":1}');
  assert.equal(forcedHint({ code: "capture", pieces: 1 }, legal, "22", t), null);
  assert.equal(forcedHint(null, [STEP], "31", t), null);
});

test("squares are listed as a sentence", () => {
  assert.equal(listSquares(["22", "26", "31"], t), "22, 26 and 31");
});

test("premove clicks: your piece starts one, other squares are landings, off the board cancels", async () => {
  const { nextPremove } = await import("../game/premove.js");
  const own = (sq) => ["28", "32"].includes(sq);
  assert.deepEqual(nextPremove(null, "28", own), ["28"]);
  assert.deepEqual(nextPremove(["28"], "17", own), ["28", "17"]); // occupied now, maybe empty later
  assert.deepEqual(nextPremove(["28", "17"], "8", own), ["28", "17", "8"]);
  assert.deepEqual(nextPremove(["28", "17"], "32", own), ["32"]);
  assert.equal(nextPremove(["28"], "28", own), null);
  assert.equal(nextPremove(["28"], null, own), null);
  assert.equal(nextPremove(null, "17", own), null);
});

test("a move's label numbers it as PDN does, from the second player's when that side began", () => {
  assert.equal(moveLabel(1, "32-28"), "1. 32-28");
  assert.equal(moveLabel(2, "19-23"), "1… 19-23");
  assert.equal(moveLabel(3, "28x19"), "2. 28x19");
  // Set up with the second player to move: its first move is "1…", the reply "2.".
  assert.equal(moveLabel(1, "19-23", true), "1… 19-23");
  assert.equal(moveLabel(2, "32-28", true), "2. 32-28");
});
