// /ratings/{variant}: the rule set's rating list (Glicko-2), with links to the
// other six. Ratings marked "?" are provisional: too few games to trust yet.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { has, t } from "./i18n/index.js";
import { publicId } from "./seats.js";
import { DEFAULT_VARIANT, VARIANTS } from "./variants.js";

export function mount(root, { variant }) {
  const chosen = VARIANTS.includes(variant) ? variant : DEFAULT_VARIANT;
  let board = null; // {variant, players}
  let error = "";

  async function load() {
    try {
      board = await api.ratings(chosen);
      error = "";
    } catch (err) {
      error = has(`errors.${err.code}`) ? t(`errors.${err.code}`) : err.message || t("errors.unknown", { code: err.code });
    }
    render();
  }

  function ratingText(p) {
    return `${p.rating}${p.provisional ? "?" : ""}`;
  }

  function render() {
    const name = t(`variants.${chosen}.name`);
    document.title = `${t("ratings_page.title", { name })} · ${t("site.name")}`;
    const nav = h("ul", { class: "variants" }, VARIANTS.map((id) => h("li", {},
      h("a", { href: `/ratings/${id}`, "aria-current": id === chosen ? "page" : undefined },
        t(`variants.${id}.name`)))));
    let body;
    if (error) {
      body = h("p", { class: "error" }, error);
    } else if (!board) {
      body = h("p", { class: "notice" }, t("ratings_page.loading"));
    } else if (!board.players.length) {
      body = h("p", { class: "empty" }, t("ratings_page.empty"));
    } else {
      const me = publicId();
      body = h("table", { class: "leaderboard", "data-variant": chosen },
        h("thead", {}, h("tr", {},
          h("th", {}, "#"),
          h("th", {}, t("ratings_page.player")),
          h("th", {}, t("ratings_page.rating")),
          h("th", {}, t("ratings_page.rd")),
          h("th", {}, t("ratings_page.games")))),
        h("tbody", {}, board.players.map((p) => h("tr", {
          "data-player": p.player,
          class: `${p.player === me ? "me" : ""}${p.provisional ? " provisional" : ""}`.trim() || undefined,
        },
        h("td", {}, String(p.rank)),
        h("td", {}, p.player.startsWith("computer-")
          ? (p.name || `${t("lobby.anonymous")} ${p.player.slice(1, 7)}`)
          : h("a", { class: "player-link", href: `/players/${encodeURIComponent(p.player)}` },
            p.name || `${t("lobby.anonymous")} ${p.player.slice(1, 7)}`),
          p.player === me ? h("span", { class: "meta" }, ` (${t("game.you")})`) : null),
        h("td", { class: "rating", title: p.provisional ? t("ratings_page.provisional") : undefined }, ratingText(p)),
        h("td", {}, `±${p.rd}`),
        h("td", {}, String(p.games))))));
    }
    replace(root, h("article", { class: "ratings" },
      nav,
      h("h1", {}, t("ratings_page.title", { name })),
      body,
      h("p", { class: "hint" }, t("ratings_page.hint")),
      h("p", {}, h("a", { href: `/?variant=${chosen}` }, t("rules_page.play", { name })))));
  }

  render();
  load();
  return { render };
}
