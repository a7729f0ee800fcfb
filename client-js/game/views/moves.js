// The move list, which is also the way back through the game: a click on a move
// (or ← → Home End) shows the board after it; "Back to the game" returns.
import { h, replace } from "../../dom.js";
import { t } from "../../i18n/index.js";
import { moveLabel } from "../model.js";

export function renderMoves(el, page) {
  const model = page.model;
  const moves = model.state.moves ?? [];
  const shown = model.shownPly;
  const parts = [];
  if (!moves.length) {
    parts.push(h("p", { class: "notice" }, t("game.no_moves_yet")));
  } else {
    const rows = [];
    const offset = model.state.starts_second ? 1 : 0;
    const cell = (ply) => {
      const text = moves[ply - 1] ?? "";
      return h("span", {
        class: `mv${ply === shown ? " current" : ""}`, "data-ply": ply,
        role: text ? "button" : null, tabindex: text ? "0" : null,
        onclick: text ? () => page.review(ply) : null,
      }, text);
    };
    // Numbered as PDN and lichess do: a game whose second player moves first starts "1. …".
    for (let slot = 0; slot < moves.length + offset; slot += 2) {
      const first = slot === 0 && offset ? h("span", { class: "mv skipped" }, "…") : cell(slot + 1 - offset);
      rows.push(h("li", {}, h("span", { class: "no" }, `${slot / 2 + 1}.`), first, cell(slot + 2 - offset)));
    }
    parts.push(h("ol", {}, rows));
  }
  const nav = (cls, label, title, ply, disabled) => h("button", {
    type: "button", class: `nav ${cls}`, title, "aria-label": title, disabled,
    onclick: () => page.review(ply),
  }, label);
  const latest = model.ply;
  parts.push(h("div", { class: "review-nav" },
    nav("first", "«", t("game.review_first"), 0, shown === 0),
    nav("prev", "‹", t("game.review_prev"), shown - 1, shown === 0),
    nav("next", "›", t("game.review_next"), shown + 1, shown >= latest),
    nav("last", "»", t("game.review_last"), latest, shown >= latest)));
  replace(el, parts);
  el.dataset.shown = String(shown);
  const current = el.querySelector(".mv.current");
  if (model.reviewing === null) el.querySelector("ol")?.parentElement && (el.scrollTop = el.scrollHeight);
  else current?.scrollIntoView?.({ block: "nearest" });
}

/** The strip over the board while looking back: where you are and the way home. */
export function renderReviewBar(el, page) {
  const model = page.model;
  if (model.reviewing === null) {
    el.hidden = true;
    replace(el);
    return;
  }
  el.hidden = false;
  const behind = model.ply - model.reviewing;
  const move = model.state.moves[model.reviewing - 1];
  const where = move
    ? t("game.reviewing", { move: moveLabel(model.reviewing, move, model.state.starts_second) })
    : t("game.reviewing_start");
  const ahead = t(behind === 1 ? "game.review_behind_one" : "game.review_behind", { n: behind });
  replace(el,
    h("span", { class: "text" }, `${where} ${ahead}`),
    h("button", { type: "button", class: "back-to-game primary", onclick: () => page.review(model.ply) },
      t("game.back_to_game")));
}
