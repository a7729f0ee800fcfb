// The HTTP API (JSON): create a game, take a seat, fetch a PDN. Errors carry the
// server's code; the page words them.
import { playerId } from "./seats.js";

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
  createGame(options) {
    return request("POST", "/api/games", { ...options, player: playerId() });
  },
  /** Take the free seat (with the invite secret for a friend's game) -> {id, url, seat}. */
  join(game, invite = null) {
    return request("POST", `/api/games/${encodeURIComponent(game)}/join`, { invite, player: playerId() });
  },
  pdn(game) {
    return request("GET", `/api/games/${encodeURIComponent(game)}/pdn`);
  },
};
