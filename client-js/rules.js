// /rules/{variant}: the rules of one rule set in the current language, with
// links to the other six, its start position and worked examples (a capture that sets
// it apart, crowning) drawn by the game's own board module. The boards come from the
// server (GET /api/rules/{variant}/examples: the engine played each example); the
// words come from i18n/en.js and i18n/de.js.
import { api } from "./api.js";
import { Board } from "./board.js";
import { h, replace } from "./dom.js";
import { t } from "./i18n/index.js";
import { VARIANTS } from "./variants.js";

/** A board that only shows: the pieces, and a move's path and captured pieces marked. */
function diagram(layout, pieces, move = null, caption = "") {
  const holder = h("div", { class: "diagram-board" });
  const board = new Board(holder);
  board.setLayout(layout);
  board.setBottom("white");
  board.update({ pieces, moves: [], lastMove: move ? { path: move.path, captured: move.captured } : null });
  if (move) board.mark(move.captured);
  return h("figure", { class: "diagram" }, holder, caption ? h("figcaption", {}, caption) : null);
}

function exampleBlock(variant, layout, example) {
  return h("section", { class: "example", "data-example": example.id },
    h("p", { class: "caption" }, t(`rules_examples.${variant}.${example.id}`)),
    h("div", { class: "pair" },
      diagram(layout, example.pieces, example.move,
        `${t("rules_examples.before")} · ${t("game.to_move", { colour: t(`colours.${example.side_to_move}`) })}`),
      diagram(layout, example.after, { path: example.move.path, captured: [] },
        `${t("rules_examples.after")} · ${t("rules_examples.move", { move: example.move.notation })}`)));
}

export function mount(root, { variant }) {
  const chosen = VARIANTS.includes(variant) ? variant : null;
  let boards = null; // the server's answer for the chosen rule set
  if (chosen) {
    api.ruleExamples(chosen)
      .then((answer) => {
        boards = answer;
        render();
      })
      .catch(() => {});
  }

  function drawings() {
    if (!boards) return h("p", { class: "notice" }, t("rules_examples.loading"));
    return h("div", { class: "drawings" },
      h("h2", {}, t("rules_examples.start")),
      h("div", { class: "start" }, diagram(boards.board, boards.start)),
      h("h2", {}, t("rules_examples.examples")),
      boards.examples.map((example) => exampleBlock(chosen, boards.board, example)));
  }

  function render() {
    const nav = h("ul", { class: "variants" }, VARIANTS.map((id) => h("li", {},
      h("a", { href: `/rules/${id}`, "aria-current": id === chosen ? "page" : undefined },
        t(`variants.${id}.name`)))));
    const common = [
      h("h2", {}, t("rules_page.common")),
      h("ul", { class: "common" }, t("rules.common").map((line) => h("li", {}, line))),
    ];
    if (!chosen) {
      document.title = `${t("site.rules")} · ${t("site.name")}`;
      replace(root, h("article", { class: "rules" }, h("h1", {}, t("site.rules")), nav, ...common));
      return;
    }
    const name = t(`variants.${chosen}.name`);
    const text = t(`rules.${chosen}`);
    document.title = `${t("rules_page.title", { name })} · ${t("site.name")}`;
    replace(root, h("article", { class: "rules", "data-variant": chosen },
      nav,
      h("h1", {}, t("rules_page.title", { name })),
      h("p", { class: "intro" }, text.intro),
      drawings(),
      text.sections.map(([heading, lines]) => [
        h("h2", {}, heading),
        h("ul", {}, lines.map((line) => h("li", {}, line))),
      ]),
      ...common,
      h("p", {}, h("a", { href: `/?variant=${chosen}` }, t("rules_page.play", { name }))),
    ));
  }

  render();
  return { render };
}
