// /players/{id}: anyone's view of a player's games and rating history (no seats).
import { api } from "../api.js";
import { t } from "../i18n/index.js";
import { mountGames } from "./list.js";

export function mount(root, { player }) {
  let name = null;
  const heading = () => t("my_games.public_title", { name: name || t("lobby.anonymous") });
  const page = mountGames(root, {
    player: { id: player, games: (variant) => api.playerGames(player, variant) },
    heading,
  });
  api.player(player).then((answer) => {
    name = answer.name;
    document.title = `${heading()} · ${t("site.name")}`;
    page.render();
  }).catch(() => {});
  return page;
}
