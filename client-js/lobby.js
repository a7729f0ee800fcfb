// The live lobby (socket /ws/lobby): open games to join with one click, running
// games to watch. The server sends the listing once, then only what changes
// (lobby_listing.js folds it in); after a reconnect the hello names the version held,
// and the server sends what was missed, or the listing again.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { has, t } from "./i18n/index.js";
import { foldLobby } from "./lobby_listing.js";
import { Connection } from "./net.js";
import { dispatcher, PROTOCOL_VERSION } from "./protocol.js";
import { rememberSeat, seatFor } from "./seats.js";

function clockText(clock) {
  if (!clock) return t("home.no_clock");
  return `${Math.round(clock.initial_ms / 60000 * 10) / 10}+${Math.round(clock.increment_ms / 1000)}`;
}

export class Lobby {
  constructor(root) {
    this.root = root;
    this.listing = null;
    this.status = "connecting";
    this.error = "";
    const fold = (msg) => {
      const { listing, resync } = foldLobby(this.listing, msg);
      if (resync) {
        this.conn.reconnectNow(); // a change went missing: ask for it by version
        return;
      }
      if (listing !== this.listing) {
        this.listing = listing;
        this.render();
      }
    };
    this.handle = dispatcher({
      lobby: fold,
      changes: fold,
      pong: () => {},
      error: () => {},
    });
  }

  start() {
    this.conn = new Connection("/ws/lobby", {
      onOpen: (conn) => conn.send("hello", { proto: PROTOCOL_VERSION, since: this.listing?.v }),
      onMessage: (msg) => this.handle(msg),
      onStatus: (status) => { this.status = status; this.render(); },
    });
    this.conn.connect();
  }

  async join(id) {
    try {
      const answer = await api.join(id);
      rememberSeat(id, { token: answer.seat.token, side: answer.seat.side });
      location.assign(`/g/${encodeURIComponent(id)}`);
    } catch (err) {
      this.error = has(`errors.${err.code}`) ? t(`errors.${err.code}`) : err.message || err.code;
      this.render();
    }
  }

  render() {
    const listing = this.listing;
    const parts = [h("h2", {}, t("lobby.title"))];
    if (!listing) {
      parts.push(h("p", { class: "notice" }, t("lobby.connecting")));
      replace(this.root, parts);
      return;
    }
    parts.push(h("h3", {}, t("lobby.open_games")));
    if (!listing.open.length) {
      parts.push(h("p", { class: "empty" }, t("lobby.none_open")));
    } else {
      parts.push(h("table", { class: "open-games" }, h("tbody", {}, listing.open.map((game) => {
        const mine = !!seatFor(game.id);
        const side = game.creator?.side;
        return h("tr", { "data-game": game.id },
          h("td", {}, t(`variants.${game.variant}.name`)),
          h("td", {}, clockText(game.clock)),
          h("td", {}, game.creator?.name || t("lobby.anonymous"),
            ratingText(game.creator) ? h("span", { class: "rating" }, ` ${ratingText(game.creator)}`) : null,
            side ? ` ${t("lobby.plays", { colour: t(`colours.${side}`) })}` : "",
            game.rated ? h("span", { class: "meta rated" }, ` · ${t("lobby.rated")}`) : null),
          h("td", {}, mine
            ? h("a", { href: `/g/${encodeURIComponent(game.id)}` }, t("lobby.yours"))
            : h("button", { type: "button", class: "join primary", onclick: () => this.join(game.id) }, t("lobby.join"))));
      }))));
    }
    parts.push(h("h3", {}, t("lobby.running_games")));
    if (!listing.live.length) {
      parts.push(h("p", { class: "empty" }, t("lobby.none_running")));
    } else {
      parts.push(h("table", { class: "live-games" }, h("tbody", {}, listing.live.map((game) =>
        h("tr", { "data-game": game.id },
          h("td", {}, t(`variants.${game.variant}.name`)),
          h("td", {}, clockText(game.clock)),
          h("td", {}, `${livePlayer(game, "white")} ${t("lobby.vs")} ${livePlayer(game, "black")}`,
            game.rated ? h("span", { class: "meta rated" }, ` · ${t("lobby.rated")}`) : null),
          h("td", {}, h("a", { class: "watch", href: `/g/${encodeURIComponent(game.id)}` }, t("lobby.watch"))))))));
    }
    if (this.error) parts.push(h("p", { class: "error" }, this.error));
    replace(this.root, parts);
  }
}

/** "1623" or "1500?" (provisional) for a {rating, provisional} entry, else null. */
function ratingText(entry) {
  if (!entry || entry.rating === null || entry.rating === undefined) return null;
  return `${entry.rating}${entry.provisional ? "?" : ""}`;
}

function livePlayer(game, side) {
  const name = game.players?.[side] || t("lobby.anonymous");
  const rating = ratingText(game.ratings?.[side]);
  return rating ? `${name} (${rating})` : name;
}
