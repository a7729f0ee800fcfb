// /my: the games of this browser's player, live ones first (back into the seat:
// the game page finds the seat this browser keeps), then the finished ones to replay.
import { api } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n/index.js";
import { publicId } from "../seats.js";
import { mountGames } from "./list.js";

export function mount(root) {
  const id = publicId();
  document.title = `${t("my_games.title")} · ${t("site.name")}`;
  return mountGames(root, {
    player: id ? { id, games: (variant) => api.playerGames(id, variant) } : null,
    heading: () => t("my_games.title"),
    extra: () => (id
      ? h("p", { class: "meta" }, h("a", { class: "public-page", href: `/players/${encodeURIComponent(id)}` }, t("my_games.public_page")))
      : h("p", { class: "notice" }, t("my_games.none_yet"))),
  });
}
