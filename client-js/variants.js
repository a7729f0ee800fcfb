// The seven rule set ids, in the order the site lists them. Their names and
// descriptions are texts (i18n); their rules live in the engine on the server.
export const VARIANTS = ["english", "international", "brazilian", "russian", "spanish", "italian", "turkish"];
