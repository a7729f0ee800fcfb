// The lobby page's listing from the socket's increments (issue 31 point 5).
import { test } from "node:test";
import assert from "node:assert/strict";
import { foldLobby } from "../lobby_listing.js";

const seek = (id, at) => ({ id, created_at: at, variant: "english" });
const start = { t: "lobby", v: 7, open: [seek("b", 20), seek("a", 10)], live: [] };

function foldAll(messages) {
  let listing = null;
  let resyncs = 0;
  for (const msg of messages) {
    const out = foldLobby(listing, msg);
    listing = out.listing;
    if (out.resync) resyncs += 1;
  }
  return { listing, resyncs };
}

test("a listing then its increments: a seek opened, one taken, a live line changed", () => {
  const { listing, resyncs } = foldAll([
    start,
    { t: "added", v: 8, open: [seek("c", 30)], live: [] },
    { t: "removed", v: 9, open: ["a"], live: [] },
    { t: "added", v: 10, open: [], live: [{ id: "a", created_at: 10, moves: 0 }] },
    { t: "changed", v: 11, open: [], live: [{ id: "a", created_at: 10, moves: 1 }] },
  ]);
  assert.equal(resyncs, 0);
  assert.equal(listing.v, 11);
  assert.deepEqual(listing.open.map((g) => g.id), ["c", "b"]);
  assert.deepEqual(listing.live, [{ id: "a", created_at: 10, moves: 1 }]);
});

test("added lines take their place newest first, ties by the greater id", () => {
  const { listing } = foldAll([
    start,
    { t: "added", v: 8, open: [seek("x", 15), seek("y", 20), seek("d", 5)], live: [] },
  ]);
  assert.deepEqual(listing.open.map((g) => g.id), ["y", "b", "x", "a", "d"]);
});

test("a change that skips a version asks for a resync and leaves the listing alone", () => {
  const { listing: held } = foldAll([start]);
  const out = foldLobby(held, { t: "removed", v: 9, open: ["a"], live: [] });
  assert.equal(out.resync, true);
  assert.equal(out.listing, held);
  assert.equal(foldLobby(null, { t: "added", v: 1, open: [], live: [] }).resync, true);
});

test("a change already held changes nothing, and a fresh listing replaces everything", () => {
  const { listing: held } = foldAll([start, { t: "removed", v: 8, open: ["a"], live: [] }]);
  const again = foldLobby(held, { t: "removed", v: 8, open: ["a"], live: [] });
  assert.equal(again.listing, held);
  const fresh = foldLobby(held, { t: "lobby", v: 3, open: [], live: [seek("z", 1)] });
  assert.deepEqual(fresh.listing, { v: 3, open: [], live: [seek("z", 1)] });
});
