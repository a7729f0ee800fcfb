// The game page's model: folds the server's messages into one state, in version
// order, and answers what the views ask (whose turn, what a clock shows, which
// position is on the board). No DOM, no socket, no timers: `node --test` runs it.
// It knows no rules: moves, positions and the reason a piece may not move all come
// from the server.

import { ERROR } from "../protocol.js";

export const OTHER = { white: "black", black: "white" };

/** m:ss, h:mm:ss, or s.t under ten seconds. */
export function formatClock(ms) {
  const value = Math.max(0, ms);
  if (value < 10000) return (Math.floor(value / 100) / 10).toFixed(1);
  const total = Math.ceil(value / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** "12. 32-28" or "12… 19-23": ply `ply`'s move with its number, as the list shows it
 * (`startsSecond`: the game's first move was its second player's). */
export function moveLabel(ply, notation, startsSecond = false) {
  const slot = ply - 1 + (startsSecond ? 1 : 0);
  return `${Math.floor(slot / 2) + 1}${slot % 2 ? "…" : "."} ${notation}`;
}

/** "1520? +12": a rating with its provisional mark and last change, or null. */
export function ratingText(p) {
  if (!p || p.rating === null || p.rating === undefined) return null;
  const diff = p.ratingDiff;
  const change = diff === undefined ? "" : ` ${diff >= 0 ? "+" : "−"}${Math.abs(diff)}`;
  return `${p.rating}${p.provisional ? "?" : ""}${change}`;
}

/** The tab title for a turn state: "● Your turn — Brazilian · Kondavo" or the plain title. */
export function turnTitle(myTurn, base, yourTurn) {
  return myTurn ? `● ${yourTurn} — ${base}` : base;
}

/** Whether a status means the game is over. */
export function isOver(status) {
  return status === "finished" || status === "aborted";
}

/**
 * Which version-ordered message to use: "apply" (the next one, or a state),
 * "ignore" (seen already, or before the first state), "gap" (one was missed:
 * resync). `events` is the set of tags that carry a version.
 */
export function ordering(v, msg, events) {
  if (!events.has(msg.t) || msg.t === "state") return "apply";
  if (v === null || msg.v <= v) return "ignore";
  if (msg.v > v + 1) return "gap";
  return "apply";
}

export class GameModel {
  constructor() {
    this.state = null; // the last full state, kept current by events
    this.v = null;
    this.pending = null; // {ack, path} of a move sent but not yet confirmed
    this.clockBase = 0; // when (page time, ms) the clocks in `state` were true
    // Past positions by ply (from GET /api/games/{id}/positions, then each "moved").
    this.plies = [];
    this.reviewing = null; // the ply shown while looking back, or null for the live board
    this.serverOffset = 0; // the server's clock minus this browser's (from state.now)
  }

  /** Whose seat this page holds, or null for a spectator. */
  get you() {
    return this.state?.you ?? null;
  }

  get myTurn() {
    const s = this.state;
    return !!s && !!s.you && s.status === "playing" && s.side_to_move === s.you;
  }

  /** The latest ply played. */
  get ply() {
    return this.state?.moves.length ?? 0;
  }

  /**
   * Folds one message into the state; returns what the page should do besides
   * redrawing: [{sound}, {flash: key}, {seat}, {rematch}, {notFound}, {turn}].
   */
  fold(msg, now = 0, wallNow = Date.now()) {
    const fold = FOLDS[msg.t];
    if (!fold) return [];
    if (msg.t !== "state" && this.state === null) return [];
    if (msg.t === "state") this.serverOffset = (msg.now ?? wallNow) - wallNow;
    const effects = fold(this, msg, now) ?? [];
    // Any event may carry what each seat may send now, when that changed.
    if (msg.may && msg.t !== "state") this.state.may = msg.may;
    return effects;
  }

  patchPlayer(side, patch) {
    const players = { ...this.state.players };
    players[side] = { ...(players[side] ?? {}), ...patch };
    this.state.players = players;
  }

  /**
   * Whether this seat may send `tag` now, as the server last said: `state.may` lists
   * each seat's commands and any event may bring new lists (server/core/permissions.py).
   * No room rule is worked out here (the abort window, a lapsed offer, who may rematch).
   */
  may(tag) {
    const s = this.state;
    if (!s?.you) return false;
    return (s.may?.[s.you] ?? []).includes(tag);
  }

  /** ms until this seat may claim the game against an absent opponent (server clock), or
   * null when no claim is counting down. `nowMs`: this browser's Date.now(). While the
   * first-move abort counts down nobody can claim (the server refuses until both sides
   * have moved), so only that countdown shows. */
  claimIn(nowMs) {
    const s = this.state;
    if (!s?.you || s.status !== "playing" || s.claimable) return null;
    if (this.abortLeft(nowMs) !== null) return null;
    const p = s.players?.[OTHER[s.you]];
    if (!p || p.present !== false || !p.claim_at) return null;
    return Math.max(0, p.claim_at - (nowMs + this.serverOffset));
  }

  /** What a clock shows at page time `now` (ms), or null for a game without clocks. */
  clockLeft(side, now) {
    const c = this.state?.clocks;
    if (!c) return null;
    const elapsed = c.running === side && this.state.status === "playing" ? now - this.clockBase : 0;
    return c[side] - elapsed;
  }

  /** ms until the game is aborted for a first move not made (server clock), or null.
   * `now`: this browser's Date.now(). */
  abortLeft(now) {
    const at = this.state?.abort_at;
    if (at === null || at === undefined || this.state.status !== "playing") return null;
    return at - (now + this.serverOffset);
  }

  lowTime(ms) {
    const initial = this.state?.clock?.initial_ms ?? 0;
    return ms < Math.min(30000, Math.max(10000, initial / 10));
  }

  /** Remember positions the server listed (ply numbers may overlap what is known). */
  addPlies(plies) {
    for (const entry of plies) this.plies[entry.ply] = entry;
  }

  /** Whether every ply up to the latest is known, so any of them can be shown. */
  get pliesComplete() {
    for (let i = 0; i <= this.ply; i++) if (!this.plies[i]) return false;
    return true;
  }

  /** Show ply `n` (clamped); the latest ply means the live board. */
  review(n) {
    const target = Math.max(0, Math.min(this.ply, n));
    this.reviewing = target === this.ply ? null : target;
    return this.reviewing;
  }

  /** The ply on the board: the one looked at, or the latest. */
  get shownPly() {
    return this.reviewing ?? this.ply;
  }

  /** What the board shows: {pieces, lastMove, moves, past}. */
  boardView() {
    const s = this.state;
    if (this.reviewing !== null && this.plies[this.reviewing]) {
      const entry = this.plies[this.reviewing];
      return { pieces: entry.pieces, lastMove: entry.last, moves: [], past: true };
    }
    return { pieces: s.pieces, lastMove: s.lastMove, moves: s.status === "playing" ? s.legal ?? [] : [], past: false };
  }

  /** Pieces each side has taken from the other (the start position is the server's ply 0). */
  taken() {
    const count = (pieces) => {
      const out = { white: 0, black: 0 };
      for (const [, colour] of pieces) out[colour] += 1;
      return out;
    };
    if (!this.plies[0]) return null;
    const start = count(this.plies[0].pieces);
    const now = count(this.state.pieces);
    return { white: Math.max(0, start.black - now.black), black: Math.max(0, start.white - now.white) };
  }
}

const FOLDS = {
  state(model, msg, now) {
    const previous = model.state;
    model.v = msg.v;
    model.state = { ...msg, lastMove: msg.last ?? previous?.lastMove ?? null };
    model.pending = null;
    model.clockBase = now;
    // A new state may be a different game's length (a resync): keep what still fits.
    model.plies = model.plies.slice(0, msg.moves.length + 1);
    if (model.reviewing !== null && model.reviewing >= msg.moves.length) model.reviewing = null;
    return [{ seat: msg.you }, { turn: model.myTurn }];
  },
  moved(model, msg, now) {
    const s = model.state;
    s.moves = [...s.moves.slice(0, msg.ply - 1), msg.notation];
    s.pieces = msg.pieces;
    s.fen = msg.fen;
    s.side_to_move = msg.side_to_move;
    s.legal = s.you && s.you === msg.side_to_move && s.status === "playing" ? msg.legal : [];
    s.lastMove = { path: msg.path, captured: msg.captured };
    s.draw_offer = s.draw_offer && s.draw_offer !== msg.by ? null : s.draw_offer;
    if (msg.clocks) {
      s.clocks = msg.clocks;
      model.clockBase = now;
    }
    if (s.status === "waiting") s.status = "playing";
    s.abort_at = msg.abort_at ?? null;
    if (s.takeback_offer) s.takeback_offer = null; // a move lets a request lapse
    model.pending = null;
    model.plies.length = Math.min(model.plies.length, msg.ply);
    // The event says what the position is; why only some pieces may move there is
    // asked for when someone wants to know (GET …/positions).
    model.plies[msg.ply] = { ply: msg.ply, fen: msg.fen, pieces: msg.pieces, last: s.lastMove, forced: undefined };
    return [{ sound: msg.captured.length ? "capture" : "move" }, { turn: model.myTurn }];
  },
  joined(model, msg) {
    model.patchPlayer(msg.side, { name: msg.name, present: true, rating: msg.rating, provisional: msg.provisional });
    const s = model.state;
    s.status = "playing";
    s.side_to_move = msg.side_to_move;
    // The event lists the side to move's moves; only that seat may use them.
    s.legal = s.you === msg.side_to_move ? msg.legal : [];
    s.abort_at = msg.abort_at ?? null;
    return [{ sound: "notify" }, { turn: model.myTurn }];
  },
  taken_back(model, msg, now) {
    const s = model.state;
    s.moves = s.moves.slice(0, msg.ply);
    s.pieces = msg.pieces;
    s.fen = msg.fen;
    s.side_to_move = msg.side_to_move;
    s.legal = s.you && s.you === msg.side_to_move ? msg.legal : [];
    s.lastMove = msg.last ?? null;
    s.draw_offer = null;
    s.takeback_offer = null;
    s.abort_at = msg.abort_at ?? null;
    if (msg.clocks) {
      s.clocks = msg.clocks;
      model.clockBase = now;
    }
    model.pending = null;
    model.plies.length = Math.min(model.plies.length, msg.ply + 1);
    if (model.reviewing !== null && model.reviewing >= msg.ply) model.reviewing = null;
    return [{ sound: "move" }, { flash: "game.taken_back" }, { turn: model.myTurn }];
  },
  takeback_offered(model, msg) {
    model.state.takeback_offer = msg.by;
    return msg.by !== model.you ? [{ sound: "notify" }] : [];
  },
  takeback_declined(model, msg) {
    model.state.takeback_offer = null;
    return msg.by !== model.you ? [{ flash: "game.takeback_declined" }] : [];
  },
  takeback_lapsed(model) {
    model.state.takeback_offer = null;
  },
  rated(model, msg) {
    for (const [side, change] of Object.entries(msg.ratings ?? {})) {
      model.patchPlayer(side, { rating: change.after, provisional: change.provisional, ratingDiff: change.diff });
    }
  },
  presence(model, msg, now) {
    const gone = msg.present ? null : now;
    // "Back" only for someone seen leaving, not for an opponent's first arrival.
    const wasAway = model.state.players?.[msg.side]?.goneAt != null;
    model.patchPlayer(msg.side, { present: msg.present, goneAt: gone, claim_at: msg.present ? null : msg.claim_at ?? null });
    if (msg.name) model.patchPlayer(msg.side, { name: msg.name }); // a player renamed itself
    if (msg.present && wasAway && msg.side !== model.you && model.you) return [{ flash: "game.opponent_back" }];
    return [];
  },
  claimable(model, msg) {
    model.state.claimable = msg.by === model.you || model.state.claimable;
  },
  draw_offered(model, msg) {
    model.state.draw_offer = msg.by;
    return [{ sound: "notify" }];
  },
  draw_declined(model, msg) {
    model.state.draw_offer = null;
    return msg.by !== model.you ? [{ flash: "game.draw_declined" }] : [];
  },
  draw_lapsed(model) {
    model.state.draw_offer = null;
  },
  rematch_offered(model, msg) {
    model.state.rematch_offer = msg.by;
    return [{ sound: "notify" }];
  },
  rematch_declined(model) {
    model.state.rematch_offer = null;
  },
  rematch(model, msg) {
    model.state.rematch = msg.game;
    return [{ rematch: msg.game }];
  },
  over(model, msg, now) {
    const s = model.state;
    s.status = msg.result === null ? "aborted" : "finished";
    s.result = msg.result;
    s.reason = msg.reason;
    s.legal = [];
    s.draw_offer = null;
    s.takeback_offer = null;
    s.abort_at = null;
    s.claimable = false;
    if (msg.clocks) {
      s.clocks = { ...msg.clocks, running: null };
      model.clockBase = now;
    }
    return [{ sound: "end" }, { turn: false }];
  },
  chat(model, msg) {
    model.state.chat = [...(model.state.chat ?? []), msg].slice(-100);
  },
  spectators(model, msg) {
    model.state.spectators = msg.n;
  },
  error(model, msg) {
    if (model.pending && msg.ack === model.pending.ack) model.pending = null;
    return msg.code === ERROR.ROOM_NOT_FOUND ? [{ notFound: true }] : [];
  },
};
