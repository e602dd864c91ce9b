/**
 * The one file of src/ that builds a regular expression at run time (eslint refuses `new RegExp`
 * and `RegExp()` everywhere else: eslint.config.js). A regex built from text at run time escapes
 * eslint-plugin-regexp's checks for super-linear backtracking, and one built from a request's
 * text is how a `*` glob once became `^a.*a.*…b$`, exponential in its stars. Here the expression's
 * syntax is the template written in the source; what is interpolated is matched literally.
 * A name or keyword list goes in as a literal, never as syntax; globs use src/util/glob.ts.
 */

/** `text` with every character that has a meaning in a pattern (outside a character class) escaped. */
export const escapeRegExp = (text: string): string => text.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&');

/**
 * A regular expression from a template: the template's raw text is the pattern (`\d` is the digit
 * class, as in a regex literal), each interpolated value a literal (escaped). Interpolate outside
 * character classes only. Review the template as a regex literal: the lint rules cannot see it.
 */
export function regex(template: TemplateStringsArray, ...literals: string[]): RegExp {
  let source = template.raw[0]!;
  for (let i = 0; i < literals.length; i++) source += escapeRegExp(literals[i]!) + template.raw[i + 1]!;
  return new RegExp(source);
}
