// The lobby page's listing from the socket's increments (issue 31 point 5).
import { test } from "node:test";
import assert from "node:assert/strict";
import { foldLobby } from "../lobby_listing.js";

const seek = (id, at) => ({ id, created_at: at, variant: "english" });
/** A `changes` message: each part {open, live}, empty lists left out here. */
const changes = (v, { removed = {}, changed = {}, added = {} }) => ({
  t: "changes", v,
  removed: { open: [], live: [], ...removed },
  changed: { open: [], live: [], ...changed },
  added: { open: [], live: [], ...added },
});
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

test("a listing then its changes: a seek opened, one taken (one frame), a live line changed", () => {
  const { listing, resyncs } = foldAll([
    start,
    changes(8, { added: { open: [seek("c", 30)] } }),
    changes(9, { removed: { open: ["a"] }, added: { live: [{ id: "a", created_at: 10, moves: 0 }] } }),
    changes(10, { changed: { live: [{ id: "a", created_at: 10, moves: 1 }] } }),
  ]);
  assert.equal(resyncs, 0);
  assert.equal(listing.v, 10);
  assert.deepEqual(listing.open.map((g) => g.id), ["c", "b"]);
  assert.deepEqual(listing.live, [{ id: "a", created_at: 10, moves: 1 }]);
});

test("added lines take their place newest first, ties by the greater id", () => {
  const { listing } = foldAll([
    start,
    changes(8, { added: { open: [seek("x", 15), seek("y", 20), seek("d", 5)] } }),
  ]);
  assert.deepEqual(listing.open.map((g) => g.id), ["y", "b", "x", "a", "d"]);
});

test("a change that skips a version asks for a resync and leaves the listing alone", () => {
  const { listing: held } = foldAll([start]);
  const out = foldLobby(held, changes(9, { removed: { open: ["a"] } }));
  assert.equal(out.resync, true);
  assert.equal(out.listing, held);
  assert.equal(foldLobby(null, changes(1, {})).resync, true);
});

test("a change already held changes nothing, and a fresh listing replaces everything", () => {
  const { listing: held } = foldAll([start, changes(8, { removed: { open: ["a"] } })]);
  const again = foldLobby(held, changes(8, { removed: { open: ["a"] } }));
  assert.equal(again.listing, held);
  const fresh = foldLobby(held, { t: "lobby", v: 3, open: [], live: [seek("z", 1)] });
  assert.deepEqual(fresh.listing, { v: 3, open: [], live: [seek("z", 1)] });
});
