// What this browser remembers: its seat tokens per game (secret: they prove a
// seat), the invite link of games it created, and its anonymous player id.
const SEATS_KEY = "kondavo.seats";
const PLAYER_KEY = "kondavo.player";
const KEEP = 200;

function all() {
  try {
    return JSON.parse(localStorage.getItem(SEATS_KEY) || "{}");
  } catch {
    return {};
  }
}

/** {token, side, invite_url?} for a game this browser sits in, or null. */
export function seatFor(game) {
  return all()[game] ?? null;
}

export function rememberSeat(game, seat) {
  const seats = all();
  seats[game] = { ...seats[game], ...seat, at: Date.now() };
  // Keep the newest few hundred only.
  const ids = Object.keys(seats).sort((a, b) => (seats[b].at ?? 0) - (seats[a].at ?? 0));
  for (const id of ids.slice(KEEP)) delete seats[id];
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
}

/** The anonymous identity kept in this browser (ratings follow it). */
export function playerId() {
  let id = localStorage.getItem(PLAYER_KEY);
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(PLAYER_KEY, id);
  }
  return id;
}

const PUBLIC_KEY = "kondavo.public";

/** The public id the server shows for this browser (ratings are listed under it). */
export function publicId() {
  return localStorage.getItem(PUBLIC_KEY);
}

export function rememberPublicId(id) {
  if (typeof id === "string" && id) localStorage.setItem(PUBLIC_KEY, id);
}
