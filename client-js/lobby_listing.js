// The lobby's listing kept from the lobby socket's increments (protocol/README.md,
// "The lobby socket"): the listing once, then one `changes` message (its `removed`,
// `changed` and `added` lines) per change, each one lobby version on. Pure: no DOM, no
// socket (client-js/tests/lobby.test.js).

const LISTS = ["open", "live"];

/** Each list newest first: by created_at, then the greater id (the server's order). */
function newestFirst(lines) {
  return [...lines].sort((a, b) => {
    const at = (b.created_at || 0) - (a.created_at || 0);
    if (at !== 0) return at;
    return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  });
}

/**
 * The listing after `msg`: {listing, resync}. A `lobby` message replaces the listing; a
 * `changes` message one version on is folded in (its `removed` ids dropped, then its
 * `changed` and `added` lines put in place, each list newest first); one that skips a
 * version (or comes before any listing) leaves the listing as it was and asks for a
 * resync (reconnect with `since`). A change the listing already has changes nothing.
 */
export function foldLobby(listing, msg) {
  if (msg.t === "lobby") return { listing: { v: msg.v, open: msg.open, live: msg.live }, resync: false };
  if (!listing || msg.v > listing.v + 1) return { listing, resync: true };
  if (msg.v <= listing.v) return { listing, resync: false };
  const next = { v: msg.v };
  for (const name of LISTS) {
    const gone = new Set(msg.removed?.[name] || []);
    let lines = gone.size ? listing[name].filter((line) => !gone.has(line.id)) : listing[name];
    const fresh = [...(msg.changed?.[name] || []), ...(msg.added?.[name] || [])];
    if (fresh.length) {
      const byId = new Map(lines.map((line) => [line.id, line]));
      for (const line of fresh) byId.set(line.id, line);
      lines = newestFirst(byId.values());
    }
    next[name] = lines;
  }
  return { listing: next, resync: false };
}
