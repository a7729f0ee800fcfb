// The HTTP API (JSON): create a game, take a seat, fetch a PDN. Errors carry the
// server's code; the page words them.
import { myName } from "./name.js";
import { playerId, rememberPublicId } from "./seats.js";

export class ApiError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError("network", "");
  }
  const type = response.headers.get("content-type") || "";
  const payload = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) {
    const error = payload?.error ?? payload ?? {};
    throw new ApiError(error.code ?? `http/${response.status}`, error.message ?? "");
  }
  return payload;
}

export const api = {
  /**
   * options: {variant, clock: {initial_s, increment_s} | null, color, opponent, level}
   * -> {id, url, seat: {side, token}, invite_url?}
   */
  async createGame(options) {
    const answer = await request("POST", "/api/games", { ...options, player: playerId(), name: myName() ?? undefined });
    if (answer?.player) rememberPublicId(answer.player);
    return answer;
  },
  /** Take the free seat (with the invite secret for a friend's game) -> {id, url, seat}. */
  async join(game, invite = null) {
    const answer = await request("POST", `/api/games/${encodeURIComponent(game)}/join`, { invite, player: playerId(), name: myName() ?? undefined });
    if (answer?.player) rememberPublicId(answer.player);
    return answer;
  },
  /** The rule set's leaderboard -> {variant, players: [{rank, player, name, rating, rd, games, provisional}]}. */
  ratings(variant) {
    return request("GET", `/api/ratings/${encodeURIComponent(variant)}`);
  },
  /** The board after every ply from `from` on -> {game, plies: [{ply, fen, pieces, last, forced}]}. */
  positions(game, from = 0) {
    return request("GET", `/api/games/${encodeURIComponent(game)}/positions?from=${from}`);
  },
  /** Games from PDN text or a FEN: {pdn | fen, variant} -> {games, layouts} (nothing stored). */
  importGames(body) {
    return request("POST", "/api/import", body);
  },
  /** A player's games (public id) -> {player, games: [...], ratings: {variant: [[t, r]...]}}. */
  playerGames(player, variant = null) {
    const query = variant ? `?variant=${encodeURIComponent(variant)}` : "";
    return request("GET", `/api/players/${encodeURIComponent(player)}/games${query}`);
  },
  /** Whether the game's own record is still kept (finished games expire after some days). */
  async gameKept(game) {
    try {
      await request("GET", `/api/games/${encodeURIComponent(game)}`);
      return true;
    } catch (err) {
      if (err.code === "room/not_found") return false;
      throw err;
    }
  },
  /** One game of a player's history as PDN text (kept after the game's own record). */
  playerGamePdn(player, game) {
    return request("GET", `/api/players/${encodeURIComponent(player)}/games.pdn?game=${encodeURIComponent(game)}`);
  },
  /** A player's ratings and name -> {player, computer, name, ratings}. */
  player(player) {
    return request("GET", `/api/players/${encodeURIComponent(player)}`);
  },
  /** A rule set's start position and worked examples -> {variant, board, start, examples}. */
  ruleExamples(variant) {
    return request("GET", `/api/rules/${encodeURIComponent(variant)}/examples`);
  },
  pdn(game) {
    return request("GET", `/api/games/${encodeURIComponent(game)}/pdn`);
  },
};
