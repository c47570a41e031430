/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** Special-token text in user input is counted as plain text, never refused. */
const PLAIN = { disallowedSpecial: new Set<string>() };

let loading: Promise<TokenCounter> | undefined;

/**
 * The o200k_base token counter of gpt-tokenizer, loaded on first use (about 1 s and 35 MB), so a
 * gateway that never estimates tokens never pays for it. Counts characters / 4 if it cannot load, or
 * if it throws on a text. An empty text has 0 tokens.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import('gpt-tokenizer').then(
    (m): TokenCounter =>
      (text) => {
        if (!text) return 0;
        try {
          return m.countTokens(text, PLAIN);
        } catch {
          return Math.ceil(text.length / 4);
        }
      },
    (): TokenCounter => (text) => Math.ceil(text.length / 4),
  );
  return loading;
}
