// The client's mirror of protocol/messages.py: the same tags, fields, version,
// error and close codes. tests/e2e/test_protocol_mirror.py checks it against
// protocol.messages.schema(), so a change on one side that is not made on the
// other fails the tests. Everything else in the client talks to the server only
// through this module.
import { decode, encode } from "./vendor/msgpack/index.mjs";

export const PROTOCOL_VERSION = 1;
export const SUBPROTOCOL = "kondavo.v1";
export const CHAT_MAX_CHARS = 140;
export const NAME_MAX_CHARS = 30;

/** Client -> server: tag -> field names. */
export const CLIENT_MESSAGES = {
  abort: ["ack", "v"],
  chat: ["ack", "v", "text"],
  claim_draw: ["ack", "v"],
  claim_victory: ["ack", "v"],
  draw_accept: ["ack", "v"],
  draw_decline: ["ack", "v"],
  draw_offer: ["ack", "v"],
  hello: ["proto", "token", "since", "name"],
  move: ["ack", "v", "path", "notation", "lag"],
  ping: ["n"],
  rematch_accept: ["ack", "v"],
  rematch_decline: ["ack", "v"],
  rematch_offer: ["ack", "v"],
  resign: ["ack", "v"],
  takeback_accept: ["ack", "v"],
  takeback_ask: ["ack", "v"],
  takeback_decline: ["ack", "v"],
};

/** Server -> client: tag -> field names. Room events carry the game's version `v` and,
 * when they changed, the commands each seat may send now (`may`). */
export const SERVER_MESSAGES = {
  ack: ["ack", "v"],
  chat: ["v", "channel", "by", "name", "text", "may"],
  claimable: ["v", "by", "may"],
  draw_declined: ["v", "by", "may"],
  draw_lapsed: ["v", "by", "may"],
  draw_offered: ["v", "by", "may"],
  error: ["code", "message", "ack"],
  joined: ["v", "side", "name", "side_to_move", "legal", "rating", "provisional", "abort_at", "may"],
  lobby: ["v", "open", "live"],
  changes: ["v", "removed", "changed", "added"],
  moved: ["v", "now", "ply", "by", "notation", "path", "captured", "fen", "side_to_move", "pieces", "legal", "clocks", "abort_at", "may"],
  over: ["v", "now", "result", "reason", "clocks", "may"],
  pong: ["n", "now"],
  presence: ["v", "side", "present", "claim_at", "name", "may"],
  rated: ["v", "ratings", "may"],
  rematch: ["v", "game", "may"],
  rematch_declined: ["v", "by", "may"],
  rematch_offered: ["v", "by", "may"],
  seat: ["game", "side", "token"],
  skip: ["v", "may"],
  spectators: ["n"],
  state: [
    "v", "game", "variant", "variant_name", "board", "you", "status", "players", "start_fen", "starts_second",
    "fen", "side_to_move", "pieces", "moves", "legal", "clock", "clocks", "result", "reason",
    "draw_offer", "rematch_offer", "rematch", "claimable", "spectators", "chat", "now", "proto",
    "last", "rated", "may", "takeback_offer", "abort_at",
  ],
  takeback_declined: ["v", "by", "retry_at", "may"],
  takeback_lapsed: ["v", "by", "may"],
  takeback_offered: ["v", "by", "may"],
  taken_back: ["v", "by", "plies", "ply", "fen", "side_to_move", "pieces", "legal", "clocks", "last", "abort_at", "may"],
};

/** Room events: they advance the game's version by one each. */
export const EVENTS = new Set([
  "state", "moved", "joined", "presence", "claimable", "draw_offered", "draw_declined",
  "draw_lapsed", "rematch_offered", "rematch_declined", "rematch", "over", "chat", "skip",
  "rated", "takeback_offered", "takeback_declined", "takeback_lapsed", "taken_back",
]);

export const ERROR_CODES = [
  "frame/not_binary", "frame/not_msgpack", "frame/not_map", "frame/too_large",
  "msg/unknown_type", "msg/missing_field", "msg/bad_field", "msg/hello_first", "msg/hello_twice",
  "proto/version", "rate/limited",
  "move/illegal", "move/invalid", "move/ambiguous", "move/not_your_turn", "move/stale",
  "move/no_opponent", "game/bad_version",
  "seat/spectator", "seat/bad_token", "seat/taken", "seat/bad_invite", "room/not_found",
  "game/over", "game/not_over", "draw/already_offered", "draw/no_offer", "draw/too_soon",
  "rematch/already_offered", "rematch/no_offer", "rematch/done", "rematch/no_opponent",
  "abort/too_late", "claim/opponent_present", "claim/too_early", "claim/no_clock", "claim/not_started",
  "chat/empty", "chat/too_long", "chat/duplicate", "rated/no_player", "rated/same_player",
  "name/empty", "name/too_long", "takeback/rated", "takeback/nothing", "takeback/already_asked",
  "takeback/pending", "takeback/no_offer", "takeback/too_soon",
  "api/bad_json", "api/bad_field", "api/bad_variant", "api/bad_clock", "api/bad_fen",
  "api/too_large", "api/not_found", "api/method", "pdn/syntax", "pdn/tag", "pdn/move", "pdn/ambiguous_move", "pdn/invalid",
  "computer/unavailable", "analysis/game_in_play", "analysis/limited",
  "server/busy", "server/error",
];

/** The codes by name, as protocol/messages.py's ErrorCode: ERROR.ROOM_NOT_FOUND is "room/not_found". */
export const ERROR = Object.freeze(Object.fromEntries(
  ERROR_CODES.map((code) => [code.replace("/", "_").toUpperCase(), code])));

export const CLOSE_CODES = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  POLICY: 1008,
  TOO_LARGE: 1009,
  SERVER_ERROR: 1011,
  NO_HELLO: 4001,
  UNSUPPORTED_VERSION: 4002,
  ROOM_NOT_FOUND: 4004,
  TOO_SLOW: 4008,
  TOO_MANY_ERRORS: 4029,
};

/** Close codes after which reconnecting cannot help. */
export const FINAL_CLOSE_CODES = new Set([
  CLOSE_CODES.UNSUPPORTED_VERSION, CLOSE_CODES.ROOM_NOT_FOUND,
]);

/** The whole schema as plain data (compared with protocol.messages.schema() in tests). */
export const SCHEMA = {
  protocol: PROTOCOL_VERSION,
  subprotocol: SUBPROTOCOL,
  client_to_server: CLIENT_MESSAGES,
  server_to_client: SERVER_MESSAGES,
  error_codes: ERROR_CODES,
  close_codes: CLOSE_CODES,
};

export class ProtocolError extends Error {}

/** Encode a client message: toServer("move", {path, v}) -> bytes. Unknown tags or fields throw. */
export function toServer(t, fields = {}) {
  const known = CLIENT_MESSAGES[t];
  if (!known) throw new ProtocolError(`unknown client message '${t}'`);
  const body = { t };
  for (const [name, value] of Object.entries(fields)) {
    if (!known.includes(name)) throw new ProtocolError(`'${t}' has no field '${name}'`);
    if (value !== undefined) body[name] = value;
  }
  return encode(body);
}

/** Decode a server frame; anything that is not a known message map throws ProtocolError. */
export function fromServer(frame) {
  let body;
  try {
    body = decode(frame instanceof ArrayBuffer ? new Uint8Array(frame) : frame);
  } catch {
    throw new ProtocolError("frame is not msgpack");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ProtocolError("frame is not a map");
  }
  if (typeof body.t !== "string" || !(body.t in SERVER_MESSAGES)) {
    throw new ProtocolError(`unknown server message '${String(body.t).slice(0, 40)}'`);
  }
  return body;
}

/**
 * Calls handlers[msg.t](msg) for each message; a tag with no handler is
 * rejected (reported through onUnknown), never silently half-handled.
 */
export function dispatcher(handlers, onUnknown = (msg) => console.warn("unhandled message", msg.t)) {
  for (const tag of Object.keys(handlers)) {
    if (!(tag in SERVER_MESSAGES)) throw new ProtocolError(`handler for unknown message '${tag}'`);
  }
  return (msg) => {
    const handler = handlers[msg.t];
    if (handler) handler(msg);
    else onUnknown(msg);
  };
}
