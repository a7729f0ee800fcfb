// Short synthesized sounds (no audio files): a move, a capture, the game's end.
// The mute choice is kept in the browser.
const STORAGE_KEY = "kondavo.muted";
let context = null;

export function muted() {
  return localStorage.getItem(STORAGE_KEY) === "1";
}

export function setMuted(value) {
  localStorage.setItem(STORAGE_KEY, value ? "1" : "0");
}

function audio() {
  if (!context) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    context = new Ctx();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

// Browsers only allow sound after a gesture: wake the context on the first one.
window.addEventListener("pointerdown", () => { if (!muted()) audio(); }, { once: true });

function tone(freq, start, length, { type = "sine", gain = 0.2 } = {}) {
  const ctx = audio();
  if (!ctx) return;
  const t0 = ctx.currentTime + start;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  amp.gain.setValueAtTime(gain, t0);
  amp.gain.exponentialRampToValueAtTime(0.001, t0 + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

const SOUNDS = {
  move: () => tone(520, 0, 0.08, { type: "triangle", gain: 0.25 }),
  capture: () => {
    tone(300, 0, 0.09, { type: "square", gain: 0.12 });
    tone(220, 0.07, 0.12, { type: "square", gain: 0.1 });
  },
  end: () => {
    tone(523, 0, 0.18);
    tone(659, 0.16, 0.18);
    tone(784, 0.32, 0.35);
  },
  notify: () => tone(880, 0, 0.12, { gain: 0.12 }),
  // Two rising notes: your turn, played in a hidden tab too (that is when it matters).
  turn: () => {
    tone(660, 0, 0.09, { gain: 0.14 });
    tone(880, 0.1, 0.12, { gain: 0.14 });
  },
};

// Sounds that are worth hearing from a tab in the background.
const EVEN_HIDDEN = new Set(["turn"]);

/** play("move" | "capture" | "end" | "notify" | "turn") unless muted. */
export function play(name) {
  if (muted() || (document.hidden && !EVEN_HIDDEN.has(name))) return;
  try {
    SOUNDS[name]?.();
  } catch {
    // Sound is decoration: never let it break the page.
  }
}
