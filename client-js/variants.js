// The seven rule set ids, in the order the site lists them. Their names and
// descriptions are texts (i18n); their rules live in the engine on the server.
export const VARIANTS = ["english", "international", "brazilian", "russian", "spanish", "italian", "turkish"];
// The rule set a game gets when none is chosen: the server's API default too
// (engine.DEFAULT_VARIANT; tests/e2e/test_site.py checks the two agree).
export const DEFAULT_VARIANT = "english";
