// The analyst panel's pure helpers: how evaluations are written and drawn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { evalY, formatEval, graphPoints, readLines } from "../analysis_graph.js";

test("an evaluation is written in men with its sign, a forced end as #n", () => {
  assert.equal(formatEval(125, null), "+1.25");
  assert.equal(formatEval(-40, null), "−0.40");
  assert.equal(formatEval(0, null), "±0.00");
  assert.equal(formatEval(999_997, 3), "#3");
  assert.equal(formatEval(-999_996, -4), "-#4");
});

test("White's advantage is drawn up, Black's down, capped at the edge", () => {
  assert.equal(evalY(0, 120), 60);
  assert.equal(evalY(800, 120), 0);
  assert.equal(evalY(-5000, 120), 120);
  assert.equal(evalY(999_990, 120), 0); // a forced win sits at the edge
  assert.equal(evalY(400, 120), 30);
});

test("the graph's points spread the positions over its width", () => {
  assert.deepEqual(graphPoints([0, 800, -800], 600, 120), [[0, 60], [300, 0], [600, 120]]);
  assert.deepEqual(graphPoints([100], 600, 120), [[0, 52.5]]);
});

test("a streamed answer is read line by line, whatever the chunks", async () => {
  const text = '{"t":"start"}\n{"t":"position","ply":0}\n{"t":"do' + 'ne"}\n';
  const chunks = [text.slice(0, 5), text.slice(5, 30), text.slice(30)].map((s) => new TextEncoder().encode(s));
  const response = { body: { getReader: () => ({ read: async () => (chunks.length ? { value: chunks.shift(), done: false } : { value: undefined, done: true }) }) } };
  const seen = [];
  await readLines(response, (line) => seen.push(line.t));
  assert.deepEqual(seen, ["start", "position", "done"]);
});
