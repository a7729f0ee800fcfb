// Language choice and lookup. All words shown to people live in en.js and de.js.
import en from "./en.js";
import de from "./de.js";

export const LANGUAGES = { en, de };
const STORAGE_KEY = "kondavo.lang";
const listeners = new Set();

function initialLanguage() {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored in LANGUAGES) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (base in LANGUAGES) return base;
  }
  return "en";
}

let current = initialLanguage();

export function lang() {
  return current;
}

export function setLang(code) {
  if (!(code in LANGUAGES) || code === current) return;
  current = code;
  localStorage.setItem(STORAGE_KEY, code);
  document.documentElement.lang = code;
  for (const fn of listeners) fn(code);
}

/** Call fn(code) whenever the language changes; returns an unsubscribe function. */
export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function lookup(table, key) {
  let node = table;
  for (const part of key.split(".")) {
    if (node === undefined || node === null) return undefined;
    node = node[part];
  }
  return node;
}

/** t("game.draw_offered", {name}) -> text in the current language (English as fallback). */
export function t(key, params = {}) {
  let value = lookup(LANGUAGES[current], key) ?? lookup(en, key);
  if (value === undefined) return key;
  if (typeof value !== "string") return value;
  return value.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** True when the key exists (used for optional texts such as reason codes). */
export function has(key) {
  return lookup(LANGUAGES[current], key) !== undefined || lookup(en, key) !== undefined;
}

document.documentElement.lang = current;
