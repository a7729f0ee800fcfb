// "/import": paste or open a PDN file (one game or many) or a FEN; the server reads it
// (POST /api/import) and the games are listed. A game opens in the replay view; a game
// the reader refused shows its sentence beside the line it names.
import { api } from "../api.js";
import { h, replace } from "../dom.js";
import { has, lang, t } from "../i18n/index.js";
import { VARIANTS } from "../variants.js";
import { linesAround, looksLikeFen } from "./fen.js";
import { gameTitle, ReplayView, resultText } from "./replay.js";

const VARIANT_KEY = "kondavo.import.variant";

export function mount(root) {
  const saved = localStorage.getItem(VARIANT_KEY);
  const state = {
    text: "",
    sent: "", // the text the answer is about (error lines are shown from it)
    variant: VARIANTS.includes(saved) ? saved : "international",
    busy: false,
    error: "",
    answer: null,
    open: null, // index of the game in the replay view
  };
  const textarea = h("textarea", {
    class: "pdn-text", rows: 10, spellcheck: "false", autocomplete: "off", "aria-label": "PDN / FEN",
  });
  textarea.addEventListener("input", () => { state.text = textarea.value; });
  const file = h("input", { type: "file", accept: ".pdn,.txt,text/plain", class: "pdn-file" });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    textarea.value = state.text = await chosen.text();
    file.value = "";
    read();
  });
  const variantSelect = h("select", { class: "variant" });
  variantSelect.addEventListener("change", () => {
    state.variant = variantSelect.value;
    localStorage.setItem(VARIANT_KEY, state.variant);
  });
  const form = h("section", { class: "import-form card" });
  const list = h("section", { class: "import-games card", hidden: true });
  const replayBox = h("div", { class: "import-replay", hidden: true });
  const replay = new ReplayView(replayBox);

  async function read() {
    if (state.busy || !state.text.trim()) return;
    state.busy = true;
    state.error = "";
    render();
    const text = state.text;
    const body = looksLikeFen(text)
      ? { fen: text.trim().replace(/^"|"$/g, ""), variant: state.variant }
      : { pdn: text, variant: state.variant };
    try {
      state.answer = await api.importGames(body);
      state.sent = text;
      const first = state.answer.games.find((g) => !g.error);
      state.open = first ? first.index : null;
    } catch (err) {
      state.answer = null;
      const reason = err.code?.startsWith("pdn/") ? readerSentence(err)
        : has(`errors.${err.code}`) ? t(`errors.${err.code}`) : err.message || t("errors.unknown", { code: err.code });
      state.error = t("import_page.failed", { reason });
    }
    state.busy = false;
    render();
    openReplay();
  }

  function openReplay() {
    const game = state.answer?.games.find((g) => g.index === state.open && !g.error);
    if (!game) {
      replayBox.hidden = true;
      return;
    }
    replay.show(game, state.answer.layouts[game.variant]);
  }

  function choose(index) {
    state.open = index;
    render();
    openReplay();
    replayBox.scrollIntoView?.({ block: "nearest" });
  }

  function gameEntry(game) {
    const number = `${game.index + 1}.`;
    if (game.error) {
      const { line, code } = game.error;
      const message = readerSentence(game.error);
      const around = line ? linesAround(state.sent, line) : [];
      return h("li", { class: "broken", "data-index": game.index },
        h("div", { class: "head" }, h("span", { class: "no" }, number), " ",
          h("span", { class: "what" }, gameTitle(game, false) || t("import_page.untitled")), " ",
          h("span", { class: "tag-broken" }, t("import_page.broken"))),
        h("div", { class: "source", "data-code": code },
          around.map((l) => h("div", { class: `src-line${l.failing ? " failing" : ""}`, "data-line": l.n },
            h("span", { class: "ln" }, String(l.n)),
            h("code", {}, l.text || " "),
            l.failing ? h("span", { class: "reason error" }, message) : null)),
          around.length ? null : h("p", { class: "reason error" }, message)));
    }
    const meta = [t(`variants.${game.variant}.name`), t("import_page.plies", { n: game.moves.length }), resultText(game)]
      .filter(Boolean).join(" · ");
    return h("li", { class: "good", "data-index": game.index },
      h("button", {
        type: "button", class: `open-game${state.open === game.index ? " current" : ""}`,
        "aria-pressed": String(state.open === game.index), onclick: () => choose(game.index),
      },
      h("span", { class: "no" }, number), " ",
      h("span", { class: "what" }, gameTitle(game, false) || t("import_page.untitled")), h("span", { class: "meta" }, meta)));
  }

  function render() {
    document.title = `${t("import_page.title")} · ${t("site.name")}`;
    textarea.placeholder = t("import_page.placeholder");
    replace(variantSelect, VARIANTS.map((id) =>
      h("option", { value: id, selected: id === state.variant }, t(`variants.${id}.name`))));
    replace(form,
      h("h2", {}, t("import_page.title")),
      h("p", { class: "notice" }, t("import_page.intro")),
      textarea,
      h("div", { class: "import-row" },
        h("label", { class: "file-label" }, t("import_page.file"), " ", file),
        h("label", { class: "variant-label" }, t("import_page.variant"), " ", variantSelect),
        h("button", { type: "button", class: "primary read", disabled: state.busy, onclick: read },
          state.busy ? t("import_page.reading") : t("import_page.read"))),
      state.error ? h("p", { class: "error import-error" }, state.error) : null);
    const games = state.answer?.games ?? null;
    list.hidden = games === null;
    if (games !== null) {
      const broken = games.filter((g) => g.error).length;
      replace(list,
        h("h2", {}, t("import_page.games", { n: games.length }),
          broken ? h("span", { class: "meta" }, ` · ${t("import_page.broken_count", { n: broken })}`) : null),
        games.length ? h("ol", { class: "game-list" }, games.map(gameEntry)) : h("p", { class: "notice" }, t("import_page.none")));
    }
    if (!replayBox.hidden) replay.render();
  }

  replace(root, h("div", { class: "import" }, form, list, replayBox));
  render();
  return { render };
}

/** Why the reader refused a game: its own sentence in English (it names the move and
 * the rule), the sentence for its code in any other language. */
function readerSentence(error) {
  if (lang() === "en" || !has(`errors.${error.code}`)) return error.message;
  return t(`errors.${error.code}`);
}
