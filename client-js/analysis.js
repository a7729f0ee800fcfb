// The analyst's panel: asks the server (POST /api/analysis) to evaluate every
// position of a record, draws the evaluation graph as the answer streams in, and
// lists the inaccuracies, mistakes and blunders with the engine's line. Every
// figure comes from the server; this module only draws it.
import { h, replace, svg } from "./dom.js";
import { t } from "./i18n/index.js";
import { formatEval, graphPoints, readLines } from "./analysis_graph.js";

const WIDTH = 600;
const HEIGHT = 120;

/**
 * The panel. ``record``: ``{game: id}`` or ``{variant, fen, moves}``; ``onSelect(ply)``
 * is called when the player picks a point of the graph or a listed move (the page
 * then shows that position). Returns ``{element, select(ply)}``.
 */
export function analysisPanel(record, { onSelect = () => {} } = {}) {
  const element = h("section", { class: "analysis", "aria-label": t("analysis.title") });
  let state = "idle"; // idle | running | done | failed
  let start = null;
  let positions = [];
  let judged = null; // the "done" line
  let error = "";
  let selected = null;

  async function run() {
    state = "running";
    positions = [];
    judged = null;
    render();
    try {
      const response = await fetch("/api/analysis", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(record),
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        const code = body.error && body.error.code;
        error = code ? t(`analysis.errors.${code.replace("/", "_")}`, { message: body.error.message }) : t("analysis.failed");
        state = "failed";
        render();
        return;
      }
      await readLines(response, (line) => {
        if (line.t === "start") start = line;
        else if (line.t === "position") positions.push(line);
        else if (line.t === "done") judged = line;
        render();
      });
      state = judged ? "done" : "failed";
      if (!judged) error = t("analysis.failed");
    } catch (err) {
      state = "failed";
      error = t("analysis.failed");
    }
    render();
  }

  function moveLabel(ply) {
    const moves = (start && start.moves) || [];
    const number = Math.ceil(ply / 2);
    return `${number}${ply % 2 ? "." : "…"} ${moves[ply - 1] || ""}`;
  }

  function graph() {
    const evals = positions.map((p) => p.eval);
    const total = start ? start.moves.length + 1 : evals.length;
    const scale = total > 1 ? WIDTH / (total - 1) : 0;
    const points = graphPoints(evals, scale * Math.max(evals.length - 1, 0), HEIGHT);
    const line = points.map(([x, y]) => `${x},${y}`).join(" ");
    const marks = judged ? judged.moves.filter((m) => m.judgement) : [];
    return svg("svg", {
      class: "eval-graph", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img",
      "aria-label": t("analysis.graph"), preserveAspectRatio: "none",
      onclick: (event) => {
        const box = event.currentTarget.getBoundingClientRect();
        const ply = Math.round(((event.clientX - box.left) / box.width) * (total - 1));
        if (ply >= 0 && ply < positions.length) onSelect(ply);
      },
    },
    svg("rect", { class: "black-side", x: 0, y: HEIGHT / 2, width: WIDTH, height: HEIGHT / 2 }),
    svg("rect", { class: "white-side", x: 0, y: 0, width: WIDTH, height: HEIGHT / 2 }),
    svg("line", { class: "zero", x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2 }),
    points.length > 1 ? svg("polyline", { class: "eval-line", points: line }) : null,
    marks.map((m) => {
      const [x, y] = points[m.ply] || [0, 0];
      // A dot as a zero-length line with a round cap: its stroke keeps its size on
      // screen (non-scaling), where a circle would stretch with the graph's width.
      return svg("line", { class: `mark ${m.judgement}`, x1: x, y1: y, x2: x, y2: y,
        "data-ply": m.ply }, svg("title", {}, `${moveLabel(m.ply)}: ${t(`analysis.${m.judgement}`)}`));
    }),
    selected !== null && points[selected]
      ? svg("line", { class: "cursor", x1: points[selected][0], y1: 0, x2: points[selected][0], y2: HEIGHT })
      : null);
  }

  function summaryTable() {
    const kinds = ["inaccuracy", "mistake", "blunder"];
    return h("table", { class: "analysis-summary" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), kinds.map((k) => h("th", {}, t(`analysis.${k}_plural`))),
        h("th", {}, t("analysis.average_loss")))),
      h("tbody", {}, ["white", "black"].map((side) => h("tr", { "data-side": side },
        h("th", {}, t(`colours.${side}`)),
        kinds.map((k) => h("td", {}, String(judged.summary[side][k]))),
        h("td", {}, (judged.summary[side].average_loss / 100).toFixed(2))))));
  }

  function notable() {
    const items = judged.moves.filter((m) => m.judgement).map((m) => {
      const before = positions[m.ply - 1];
      return h("li", { class: m.judgement, "data-ply": m.ply },
        h("button", { type: "button", class: "link", onclick: () => onSelect(m.ply) }, moveLabel(m.ply)),
        ` ${t(`analysis.${m.judgement}`)} (${formatEval(-m.loss, null)})`,
        before && before.best ? ` · ${t("analysis.best")} ${before.best}` : "");
    });
    return items.length ? h("ol", { class: "analysis-moves" }, items) : h("p", { class: "meta" }, t("analysis.clean"));
  }

  function lineAt(ply) {
    const p = positions[ply];
    if (!p) return null;
    return h("p", { class: "engine-line" },
      h("strong", {}, formatEval(p.eval, p.win_in)), " ",
      p.pv.length ? `${t("analysis.line")}: ${p.pv.join(" ")}` : t("analysis.over"),
      h("span", { class: "meta" }, ` · ${t("analysis.depth", { depth: p.depth })}`));
  }

  function render() {
    const parts = [h("h2", {}, t("analysis.title"))];
    if (state === "idle") {
      parts.push(h("button", { type: "button", class: "analyse", onclick: run }, t("analysis.run")));
    } else if (state === "failed") {
      parts.push(h("p", { class: "error" }, error),
        h("button", { type: "button", class: "analyse", onclick: run }, t("analysis.retry")));
    } else {
      const total = start ? start.moves.length + 1 : 0;
      if (state === "running") {
        parts.push(h("p", { class: "notice", role: "status" },
          t("analysis.running", { done: positions.length, total })));
      }
      parts.push(graph());
      if (selected !== null) parts.push(lineAt(selected));
      if (judged) parts.push(summaryTable(), notable());
    }
    replace(element, ...parts);
  }

  render();
  return {
    element,
    run,
    select(ply) {
      selected = ply;
      if (state !== "idle") render();
    },
  };
}
