/** Word classes the splitter and declaration parser rely on (LEAN_SYNTAX.md §7–8). */

/** Keywords that begin a declaration (after modifiers). */
export const DECL_KEYWORDS = new Set([
  'theorem', 'lemma', 'def', 'abbrev', 'instance', 'example', 'opaque', 'axiom', 'structure', 'class', 'inductive',
  'coinductive', 'irreducible_def', 'proof_wanted',
]);

/** Keywords that always begin a command (at bracket depth 0). */
export const HARD_COMMAND_KEYWORDS = new Set([
  ...DECL_KEYWORDS,
  'mutual', 'namespace', 'section', 'end', 'variable', 'universe', 'attribute', 'export', 'include', 'omit', 'notation',
  'notation3', 'infix', 'infixl', 'infixr', 'prefix', 'postfix', 'syntax', 'macro', 'macro_rules', 'elab', 'elab_rules',
  'declare_syntax_cat', 'initialize', 'builtin_initialize', 'add_decl_doc', 'alias', 'run_cmd', 'run_elab', 'run_meta',
  'unif_hint', 'simproc', 'dsimproc', 'register_simp_attr', 'binder_predicate', 'deriving', 'library_note',
  'initialize_simps_projections', 'suppress_compilation', 'assert_not_exists', 'assert_not_imported', 'compile_inductive%',
  'register_option', 'register_builtin_option', 'declare_config_elab', 'add_aesop_rules', 'scoped[',
]);

/** Declaration modifiers, in any order here (Lean fixes an order; we only need to skip them). */
export const MODIFIERS = new Set(['private', 'protected', 'public', 'noncomputable', 'unsafe', 'partial', 'nonrec', 'meta', 'local', 'scoped']);

/** Commands that may prefix another command with `in`. */
export const IN_PREFIX_COMMANDS = new Set(['open', 'set_option', 'include', 'omit', 'variable', '#guard_msgs']);

/** Words that start a command only at a line start, left of or at the current command's column. */
export const SOFT_COMMAND_KEYWORDS = new Set(['open', 'set_option', 'import']);

/** Words that continue the current declaration even at column 0. */
export const CONTINUATION_KEYWORDS = new Set([
  'where', 'termination_by', 'termination_by?', 'decreasing_by', 'partial_fixpoint', 'with', 'extends', 'then', 'else',
  'from', 'at', 'in', 'using', 'fun', 'do', 'by', 'calc', 'show', 'have', 'let', 'match', 'if', 'deriving',
]);

/** Keywords (identifier-shaped) that end with an expression still expected. */
export const EXPECTS_MORE = new Set(['by', 'fun', 'then', 'else', 'do', 'at', 'with', 'from', 'in', 'using', 'calc', 'show', 'have', 'let', 'match', 'if', 'λ', 'return', 'suffices', 'obtain']);

/** Known `#` commands (any `#word` at column 0 counts too). */
export const HASH_COMMANDS = new Set([
  '#check', '#check_failure', '#eval', '#eval!', '#reduce', '#synth', '#print', '#exit', '#where', '#version', '#guard_msgs',
  '#check_tactic', '#lint', '#help', '#find', '#simp', '#norm_num', '#conv', '#guard', '#guard_expr', '#time', '#count_heartbeats',
  '#adaptation_note', '#import_path', '#check_assertions', '#leansearch', '#moogle', '#loogle', '#find_home', '#minimize_imports',
  '#align', '#align_import', '#noalign', '#test', '#sample', '#explode', '#html', '#widget', '#exit',
]);

export const OPENERS: Record<string, string> = {
  '(': ')', '[': ']', '{': '}', '⟨': '⟩', '⦃': '⦄', '⟦': '⟧', '@[': ']', '#[': ']', '%[': ']', '`(': ')', '``(': ')', '.{': '}', '⁅': '⁆',
};
export const CLOSERS = new Set(Object.values(OPENERS));
export const OPENER_SET = new Set(Object.keys(OPENERS));
