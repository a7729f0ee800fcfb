// The SVG board: draws any layout the server sends (8x8 dark squares, mirrored,
// 10x10, Turkish all-squares), and turns clicks or drags into one of the legal
// moves the server listed. It knows no rules: a move is whatever path the list has.
import { svg } from "./dom.js";

const CELL = 100;
const DRAG_THRESHOLD_PX = 6;

/**
 * Which legal moves agree with what the player has entered so far:
 * the start square, the landing squares clicked in order (`via`, any subset of
 * the path, in order) and, once chosen, the final square (`to`).
 * Returns [{move, next}] where `next` is the index of the first path square not
 * yet accounted for.
 */
export function matchMoves(moves, from, via = [], to = null) {
  const result = [];
  for (const move of moves) {
    const path = move.path;
    if (path[0] !== from) continue;
    const last = path.length - 1;
    if (to !== null && path[last] !== to) continue;
    // With a chosen final square, the clicked landings must come before it.
    const limit = to === null ? last : last - 1;
    let i = 0;
    let ok = true;
    for (const square of via) {
      let j = i + 1;
      while (j <= limit && path[j] !== square) j++;
      if (j > limit) {
        ok = false;
        break;
      }
      i = j;
    }
    if (ok) result.push({ move, next: i + 1 });
  }
  return result;
}

/**
 * Decide what a click on `square` means, given the selection {from, via, to}.
 * Returns {send: move} | {selection} | {reset: true}. Pure, so it is easy to test.
 */
export function resolveClick(moves, selection, square) {
  const { from, via, to } = selection;
  if (to === null) {
    const candidates = matchMoves(moves, from, [...via, square]);
    if (candidates.length === 0) return { reset: true };
    if (candidates.length === 1) return { send: candidates[0].move };
    const ending = candidates.filter((c) => c.move.path.at(-1) === square);
    if (ending.length === candidates.length) {
      // Several routes reach this square: ask for the landing squares in between.
      return { selection: { from, via, to: square } };
    }
    const exact = ending.filter((c) => c.move.path.length === via.length + 2);
    if (exact.length === 1) return { send: exact[0].move };
    return { selection: { from, via: [...via, square], to: null } };
  }
  const candidates = matchMoves(moves, from, [...via, square], to);
  if (candidates.length === 0) return { reset: true };
  if (candidates.length === 1) return { send: candidates[0].move };
  return { selection: { from, via: [...via, square], to } };
}

function intersect(lists) {
  if (!lists.length) return [];
  return lists.reduce((acc, list) => acc.filter((x) => list.includes(x)));
}

export class Board {
  /**
   * onMove(path) is called with the chosen move's path (list of labels); onIdle(label)
   * with a click the listed moves had no use for (label null: off the squares);
   * onCancel() on a right-click.
   */
  constructor(container, { onMove = () => {}, onSelect = () => {}, onIdle = () => {}, onCancel = () => {} } = {}) {
    this.container = container;
    this.onMove = onMove;
    this.onSelect = onSelect;
    this.onIdle = onIdle;
    this.onCancel = onCancel;
    this.premove = null; // [from, ...landings] chosen during the opponent's turn
    this.marked = new Set(); // squares to point at (the pieces that must capture)
    this.past = false; // showing a past position: no moves, a marker
    this.coordinates = true;
    this.layout = null;
    this.pieces = new Map(); // label -> {colour, king}
    this.moves = [];
    this.lastMove = null;
    this.bottom = "white";
    this.selection = null;
    this.drag = null;
    this.svg = svg("svg", { class: "board", role: "img" });
    this.svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    this.svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    this.svg.addEventListener("pointercancel", () => this.cancelDrag());
    this.svg.addEventListener("contextmenu", (e) => {
      e.preventDefault();
      this.onCancel();
    });
    container.append(this.svg);
  }

  setLayout(layout) {
    this.layout = layout;
    this.byLabel = new Map(layout.squares.map(([label, col, row]) => [label, { col, row }]));
    this.byCell = new Map(layout.squares.map(([label, col, row]) => [`${col},${row}`, label]));
    // The colour of the playing squares: dark. When every square is a playing
    // square (Turkish), colour them like a chess board (a1 dark).
    const all = layout.squares.length === layout.cols * layout.rows;
    const [, c0, r0] = layout.squares[0];
    this.darkParity = all ? (layout.rows - 1) % 2 : (c0 + r0) % 2;
    this.selection = null;
    this.render();
  }

  /** Several changes, one redraw: update({pieces, moves, lastMove}) (any subset). */
  update({ pieces, moves, lastMove } = {}) {
    if (pieces !== undefined) {
      this.pieces = new Map(pieces.map(([label, colour, king]) => [label, { colour, king: !!king }]));
    }
    if (lastMove !== undefined) this.lastMove = lastMove;
    if (moves !== undefined) {
      this.moves = moves ?? [];
      if (this.selection && !this.moves.some((m) => m.path[0] === this.selection.from)) this.selection = null;
    }
    this.render();
  }

  /** pieces: [[label, "white"|"black", isKing], ...] */
  setPieces(pieces) {
    this.pieces = new Map(pieces.map(([label, colour, king]) => [label, { colour, king: !!king }]));
    this.render();
  }

  /** moves: [{notation, path, captured}, ...] the viewer may play now (or []). */
  setMoves(moves) {
    this.moves = moves ?? [];
    if (this.selection && !this.moves.some((m) => m.path[0] === this.selection.from)) this.selection = null;
    this.render();
  }

  setLastMove(move) {
    this.lastMove = move;
    this.render();
  }

  setBottom(colour) {
    this.bottom = colour === "black" ? "black" : "white";
    this.render();
  }

  flip() {
    this.setBottom(this.bottom === "white" ? "black" : "white");
  }

  /** Show a premove path (or none). */
  setPremove(path) {
    this.premove = path && path.length ? [...path] : null;
    this.render();
  }

  clearPremove() {
    if (this.premove) this.setPremove(null);
  }

  /** Point at some squares (e.g. the pieces that must capture); [] clears. */
  mark(squares) {
    const next = new Set(squares);
    if (next.size === this.marked.size && [...next].every((s) => this.marked.has(s))) return;
    this.marked = next;
    this.render();
  }

  /** Whether the board shows a past position (it then takes no moves). */
  setPast(past) {
    if (this.past === !!past) return;
    this.past = !!past;
    this.render();
  }

  setCoordinates(on) {
    this.coordinates = !!on;
    this.render();
  }

  clearSelection() {
    this.selection = null;
    this.render();
  }

  // --- geometry ---

  /** Display position (top-left corner in SVG units) of a board cell. */
  place(col, row) {
    const { cols, rows } = this.layout;
    const flipped = this.bottom === "black";
    return {
      x: (flipped ? cols - 1 - col : col) * CELL,
      y: (flipped ? rows - 1 - row : row) * CELL,
    };
  }

  labelAt(clientX, clientY) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix || !this.layout) return null;
    const pt = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
    const { cols, rows } = this.layout;
    let col = Math.floor(pt.x / CELL);
    let row = Math.floor(pt.y / CELL);
    if (col < 0 || row < 0 || col >= cols || row >= rows) return null;
    if (this.bottom === "black") {
      col = cols - 1 - col;
      row = rows - 1 - row;
    }
    return this.byCell.get(`${col},${row}`) ?? null;
  }

  // --- input ---

  movable(label) {
    return this.moves.some((m) => m.path[0] === label);
  }

  select(label) {
    this.selection = { from: label, via: [], to: null };
    this.onSelect(label);
  }

  /** A click (or drop) on a square; returns true when it was used as a move step. */
  clickSquare(label) {
    if (label === null) {
      this.selection = null;
      this.render();
      this.onIdle(null);
      return false;
    }
    if (this.selection) {
      const outcome = resolveClick(this.moves, this.selection, label);
      if (outcome.send) {
        this.selection = null;
        this.render();
        this.onMove(outcome.send.path, outcome.send);
        return true;
      }
      if (outcome.selection) {
        this.selection = outcome.selection;
        this.render();
        return true;
      }
    }
    if (this.movable(label)) {
      this.select(label);
      this.marked = new Set();
    } else {
      this.selection = null;
    }
    this.render();
    if (!this.movable(label)) this.onIdle(label);
    return false;
  }

  pointerDown(event) {
    if (event.button !== 0 || !this.layout) return;
    const label = this.labelAt(event.clientX, event.clientY);
    if (this.selection && label !== null && !resolveClick(this.moves, this.selection, label).reset) {
      this.clickSquare(label); // a landing square of the selected piece
      return;
    }
    if (label !== null && label === this.selection?.from) {
      // A second press on the selected piece: drag it, or deselect on release.
      this.drag = { from: label, x: event.clientX, y: event.clientY, moved: false, toggle: true };
    } else {
      this.clickSquare(label);
      if (label !== null && this.selection?.from === label) {
        this.drag = { from: label, x: event.clientX, y: event.clientY, moved: false, toggle: false };
      }
    }
    if (this.drag) {
      this.svg.setPointerCapture?.(event.pointerId);
      event.preventDefault();
    }
  }

  pointerMove(event) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.moved) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_THRESHOLD_PX) return;
      drag.moved = true;
      drag.ghost = this.pieceGroup(drag.from, this.pieces.get(drag.from), 0, 0);
      drag.ghost.classList.add("dragging");
      this.svg.querySelector(`.piece[data-square="${CSS.escape(drag.from)}"]`)?.classList.add("lifted");
      this.svg.append(drag.ghost);
    }
    const matrix = this.svg.getScreenCTM();
    const pt = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    drag.ghost.setAttribute("transform", `translate(${pt.x - CELL / 2} ${pt.y - CELL / 2})`);
  }

  pointerUp(event) {
    const drag = this.drag;
    if (!drag) return;
    this.drag = null;
    if (!drag.moved) {
      if (drag.toggle) this.clearSelection();
      return;
    }
    drag.ghost?.remove();
    const label = this.labelAt(event.clientX, event.clientY);
    if (label === drag.from || label === null) {
      this.render();
      return;
    }
    // Dropping on the final square: the whole move when it is unambiguous.
    this.clickSquare(label);
  }

  cancelDrag() {
    if (!this.drag) return;
    this.drag.ghost?.remove();
    this.drag = null;
    this.render();
  }

  // --- drawing ---

  render() {
    if (!this.layout) return;
    if (this.drag?.moved) this.cancelDrag();
    const { cols, rows, notation } = this.layout;
    const root = this.svg;
    root.setAttribute("viewBox", `0 0 ${cols * CELL} ${rows * CELL}`);
    root.dataset.cols = cols;
    root.dataset.rows = rows;
    root.dataset.bottom = this.bottom;
    root.replaceChildren();

    const highlight = this.highlights();
    const squares = svg("g", { class: "squares" });
    const marks = svg("g", { class: "marks" });
    const labels = svg("g", { class: "coords" });
    const pieces = svg("g", { class: "pieces" });

    // Every cell, playing or not, so the board has its light and dark pattern.
    for (let row = 0; row < rows; row++) {
      for (let col = 0; col < cols; col++) {
        const { x, y } = this.place(col, row);
        const label = this.byCell.get(`${col},${row}`);
        const dark = (col + row) % 2 === this.darkParity;
        const classes = ["sq", dark ? "dark" : "light"];
        if (label !== undefined) {
          if (highlight.last.has(label)) classes.push("last");
          if (highlight.selected.has(label)) classes.push("selected");
        }
        squares.append(svg("rect", {
          x, y, width: CELL, height: CELL, class: classes.join(" "),
          "data-square": label,
        }));
      }
    }

    for (const [label, { col, row }] of this.byLabel) {
      const { x, y } = this.place(col, row);
      const occupied = this.pieces.has(label);
      if (highlight.destinations.has(label)) {
        marks.append(occupied
          ? svg("circle", { cx: x + 50, cy: y + 50, r: 46, class: "dest occupied", "data-dest": label })
          : svg("circle", { cx: x + 50, cy: y + 50, r: 16, class: "dest", "data-dest": label }));
      } else if (highlight.steps.has(label)) {
        marks.append(svg("circle", { cx: x + 50, cy: y + 50, r: 30, class: "step", "data-step": label }));
      }
    }

    if (this.coordinates) this.drawCoordinates(labels, notation);
    for (const [i, label] of (this.premove ?? []).entries()) {
      const pos = this.byLabel.get(label);
      if (!pos) continue;
      const { x, y } = this.place(pos.col, pos.row);
      marks.append(svg("rect", {
        x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6,
        class: i === 0 ? "premove from" : "premove", "data-premove": label,
      }));
    }
    for (const label of this.marked) {
      const pos = this.byLabel.get(label);
      if (!pos) continue;
      const { x, y } = this.place(pos.col, pos.row);
      marks.append(svg("circle", { cx: x + 50, cy: y + 50, r: 46, class: "must", "data-must": label }));
    }

    for (const [label, piece] of this.pieces) {
      const pos = this.byLabel.get(label);
      if (!pos) continue;
      const { x, y } = this.place(pos.col, pos.row);
      const g = this.pieceGroup(label, piece, x, y);
      if (highlight.captured.has(label)) g.classList.add("captured");
      if (highlight.movable.has(label)) g.classList.add("movable");
      pieces.append(g);
    }

    root.append(squares, labels, marks, pieces);
    root.dataset.selected = this.selection?.from ?? "";
    root.dataset.premove = (this.premove ?? []).join("-");
    root.classList.toggle("past", this.past);
  }

  pieceGroup(label, { colour, king }, x, y) {
    const g = svg("g", {
      class: `piece ${colour}${king ? " king" : ""}`,
      "data-square": label,
      transform: `translate(${x} ${y})`,
    });
    g.append(
      svg("circle", { cx: 50, cy: 53, r: 38, class: "shadow" }),
      svg("circle", { cx: 50, cy: 50, r: 38, class: "body" }),
      svg("circle", { cx: 50, cy: 50, r: 27, class: "ring" }),
    );
    if (king) {
      g.append(svg("path", {
        class: "crown",
        d: "M29 60 L25 36 L38 47 L50 30 L62 47 L75 36 L71 60 Z",
      }));
    }
    return g;
  }

  drawCoordinates(group, notation) {
    const { cols, rows } = this.layout;
    if (notation === "numeric") {
      for (const [label, { col, row }] of this.byLabel) {
        const { x, y } = this.place(col, row);
        group.append(svg("text", { x: x + 5, y: y + 19, class: "num" }, label));
      }
      return;
    }
    // Algebraic: files along the bottom edge, ranks along the left edge.
    const files = new Map();
    const ranks = new Map();
    for (const [label, { col, row }] of this.byLabel) {
      const m = /^([a-z])(\d+)$/.exec(label);
      if (!m) continue;
      files.set(col, m[1]);
      ranks.set(row, m[2]);
    }
    const bottomRow = this.bottom === "black" ? 0 : rows - 1;
    const leftCol = this.bottom === "black" ? cols - 1 : 0;
    const tone = (col, row) => ((col + row) % 2 === this.darkParity ? " on-dark" : " on-light");
    for (const [col, file] of files) {
      const { x, y } = this.place(col, bottomRow);
      group.append(svg("text", {
        x: x + CELL - 6, y: y + CELL - 6, class: `file${tone(col, bottomRow)}`, "text-anchor": "end",
      }, file));
    }
    for (const [row, rank] of ranks) {
      const { x, y } = this.place(leftCol, row);
      group.append(svg("text", { x: x + 5, y: y + 21, class: `rank${tone(leftCol, row)}` }, rank));
    }
  }

  /** Squares to mark: the selection, where it can go, what it would capture, the last move. */
  highlights() {
    const out = {
      selected: new Set(),
      destinations: new Set(),
      steps: new Set(),
      captured: new Set(),
      movable: new Set(),
      last: new Set(this.lastMove?.path ?? []),
    };
    if (!this.selection) {
      for (const move of this.moves) out.movable.add(move.path[0]);
      return out;
    }
    const { from, via, to } = this.selection;
    out.selected.add(from);
    for (const square of via) out.selected.add(square);
    if (to !== null) out.selected.add(to);
    const candidates = matchMoves(this.moves, from, via, to);
    for (const { move, next } of candidates) {
      const last = move.path.at(-1);
      if (to === null) out.destinations.add(last);
      if (next < move.path.length - 1 || to !== null) out.steps.add(move.path[next]);
    }
    for (const square of out.destinations) out.steps.delete(square);
    const done = candidates.map(({ move, next }) =>
      to === null ? (move.captured ?? []).slice(0, next - 1) : move.captured ?? []);
    for (const square of intersect(done)) out.captured.add(square);
    return out;
  }
}
