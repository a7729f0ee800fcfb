// A player's games as the server keeps them (GET /api/players/{id}/games): the table,
// the rule-set filter and a small rating chart per rule set. Shared by "My games" and
// a player's public page; a finished game opens on the game page, which replays it.
import { h, replace, svg } from "../dom.js";
import { has, lang, t } from "../i18n/index.js";
import { OTHER } from "../game/model.js";
import { VARIANTS } from "../variants.js";
import { api } from "../api.js";
import { ReplayView } from "../import/replay.js";

function clockText(clock) {
  if (!clock) return t("home.no_clock");
  return `${Math.round(clock.initial_ms / 60000 * 10) / 10}+${Math.round(clock.increment_ms / 1000)}`;
}

function opponentText(game) {
  const o = game.opponent;
  if (!o) return t("lobby.anonymous");
  if (o.computer) return t("game.computer_level", { n: o.level ?? "?" });
  return o.name || t("lobby.anonymous");
}

/** "Win · Black resigned." from this player's side, or "Live". */
function resultText(game) {
  if (game.status === "live") return t("my_games.live");
  let outcome = t("result.draw");
  if (game.result === game.color) outcome = t("result.you_win");
  else if (game.result === OTHER[game.color]) outcome = t("result.you_lose");
  const loser = game.result === "white" || game.result === "black" ? t(`colours.${OTHER[game.result]}`) : "";
  const key = game.reason === "abandoned" && game.result === "draw" ? "reasons.abandoned_draw" : `reasons.${game.reason}`;
  const reason = game.reason ? (has(key) ? t(key, { loser }) : t("reasons.unknown", { code: game.reason })) : "";
  return `${outcome} · ${reason}`;
}

function outcomeOf(game) {
  if (game.status === "live") return "live";
  if (game.result === game.color) return "win";
  if (game.result === OTHER[game.color]) return "loss";
  return "draw";
}

export function gamesTable(games, onReplay = null) {
  if (!games.length) return h("p", { class: "empty" }, t("my_games.empty"));
  const date = new Intl.DateTimeFormat(lang(), { dateStyle: "medium", timeStyle: "short" });
  return h("table", { class: "games-list" },
    h("thead", {}, h("tr", {},
      ["date", "variant", "clock", "opponent", "colour", "result", ""].map((k) =>
        h("th", {}, k ? t(`my_games.${k}`) : "")))),
    h("tbody", {}, games.map((game) => h("tr", {
      class: `game-row ${game.status}`, "data-game": game.id, "data-outcome": outcomeOf(game),
    },
      h("td", {}, date.format(new Date(game.at))),
      h("td", {}, t(`variants.${game.variant}.name`)),
      h("td", {}, clockText(game.clock)),
      h("td", { class: "opponent" }, opponentText(game)),
      h("td", {}, t(`colours.${game.color}`)),
      h("td", { class: "result" }, resultText(game),
        game.rated ? h("span", { class: "meta rated" }, ` · ${t("lobby.rated")}`) : null),
      h("td", {}, h("a", {
        class: "open-game", href: `/g/${encodeURIComponent(game.id)}`,
        onclick: game.status === "finished" && onReplay ? (e) => onReplay(e, game) : null,
      }, game.status === "live" ? t("my_games.play_on") : t("my_games.replay")))))));
}

/** One small line chart per rule set: the rating after each rated game. */
export function ratingCharts(points) {
  const charts = Object.entries(points).filter(([, line]) => line.length > 0).map(([variant, line]) => {
    const width = 240;
    const height = 60;
    const ratings = line.map(([, r]) => r);
    const low = Math.min(...ratings) - 10;
    const high = Math.max(...ratings) + 10;
    const x = (i) => (line.length === 1 ? width / 2 : (i / (line.length - 1)) * width);
    const y = (r) => height - ((r - low) / (high - low)) * height;
    const path = line.map(([, r], i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" ");
    return h("figure", { class: "rating-chart", "data-variant": variant },
      svg("svg", { viewBox: `-4 -4 ${width + 8} ${height + 8}`, width: width + 8, height: height + 8, role: "img",
        "aria-label": t("my_games.chart", { name: t(`variants.${variant}.name`) }) },
        svg("polyline", { points: path, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
        line.map(([, r], i) => svg("circle", { cx: x(i).toFixed(1), cy: y(r).toFixed(1), r: 2.5 }))),
      h("figcaption", {}, `${t(`variants.${variant}.name`)}: ${ratings.at(-1)}`));
  });
  return charts.length ? h("div", { class: "rating-charts" }, charts) : null;
}

/** The page body for `player`'s games; `heading` the title; `extra` links above the list. */
export function mountGames(root, { player, heading, extra = () => null }) {
  let variant = new URLSearchParams(location.search).get("variant");
  if (!VARIANTS.includes(variant)) variant = null;
  let answer = null;
  let error = "";
  const replayBox = h("div", { class: "history-replay", hidden: true });
  let replay = null;

  /** A finished game opens on the game page while its record is kept (some days); after
   * that, from this history's PDN in the import page's replay view, here. */
  async function onReplay(event, game) {
    event.preventDefault();
    const href = event.currentTarget.href;
    try {
      if (await api.gameKept(game.id)) {
        location.assign(href);
        return;
      }
      const pdn = await api.playerGamePdn(player.id, game.id);
      const read = await api.importGames({ pdn, variant: game.variant });
      const found = read.games.find((g) => !g.error);
      if (!found) throw new Error(read.games[0]?.error?.message ?? "");
      replay ??= new ReplayView(replayBox);
      replay.show(found, read.layouts[found.variant]);
      replayBox.hidden = false;
      replayBox.scrollIntoView?.();
    } catch (err) {
      error = err.message || err.code;
      render();
    }
  }

  async function load() {
    try {
      answer = player ? await player.games(variant) : { games: [], ratings: {} };
      error = "";
    } catch (err) {
      error = err.message || err.code;
    }
    render();
  }

  function render() {
    const filter = h("select", { class: "variant-filter", "aria-label": t("my_games.filter") },
      h("option", { value: "" }, t("my_games.all")),
      VARIANTS.map((id) => h("option", { value: id, selected: id === variant }, t(`variants.${id}.name`))));
    filter.addEventListener("change", () => {
      variant = filter.value || null;
      load();
    });
    const pdn = player?.id
      ? h("a", { class: "pdn-all", href: `/api/players/${encodeURIComponent(player.id)}/games.pdn${variant ? `?variant=${variant}` : ""}`, download: "" },
        t("my_games.download_pdn"))
      : null;
    replace(root, h("section", { class: "player-games card" },
      h("h1", {}, heading()),
      extra(),
      answer ? ratingCharts(answer.ratings) : null,
      h("div", { class: "row" }, filter, " ", pdn),
      error ? h("p", { class: "error" }, error) : null,
      answer ? gamesTable(answer.games, player ? onReplay : null) : h("p", { class: "notice" }, t("my_games.loading"))),
    replayBox);
  }

  render();
  load();
  return { render };
}
