/** Word classes the splitter and declaration parser rely on [lean4 v4.28.0: src/Lean/Parser/Command.lean, `declModifiers`, `declaration`]. */

/** Keywords that begin a declaration (after modifiers). */
export const DECL_KEYWORDS = new Set([
  'theorem',
  'lemma',
  'def',
  'abbrev',
  'instance',
  'example',
  'opaque',
  'axiom',
  'structure',
  'class',
  'inductive',
  'coinductive',
  'irreducible_def',
  'proof_wanted',
]);

/** Commands that extend the syntax (notation, macros, elaborators): the `notation` kind of command. */
export const NOTATION_KEYWORDS = new Set([
  'notation',
  'notation3',
  'infix',
  'infixl',
  'infixr',
  'prefix',
  'postfix',
  'syntax',
  'macro',
  'macro_rules',
  'elab',
  'elab_rules',
  'declare_syntax_cat',
  'binder_predicate',
]);

/** Keywords that always begin a command (at bracket depth 0). */
export const HARD_COMMAND_KEYWORDS = new Set([
  ...DECL_KEYWORDS,
  'mutual',
  'namespace',
  'section',
  'end',
  'variable',
  'universe',
  'attribute',
  'export',
  'include',
  'omit',
  ...NOTATION_KEYWORDS,
  'initialize',
  'builtin_initialize',
  'add_decl_doc',
  'alias',
  'run_cmd',
  'run_elab',
  'run_meta',
  'unif_hint',
  'simproc',
  'dsimproc',
  'register_simp_attr',
  'binder_predicate',
  'deriving',
  'library_note',
  'initialize_simps_projections',
  'suppress_compilation',
  'assert_not_exists',
  'assert_not_imported',
  'compile_inductive%',
  'register_option',
  'register_builtin_option',
  'declare_config_elab',
  'add_aesop_rules',
  'scoped[',
]);

/**
 * Modifiers (and attribute words: `@[local simp]`, `@[scoped instance]`) that tie a command's effect to the
 * section or namespace it stands in [lean4 v4.28.0: src/Lean/Parser/Term.lean, `attrKind := leading_parser
 * optional («scoped» <|> «local»)`].
 */
export const SCOPE_MODIFIERS = new Set(['local', 'scoped']);

/** Declaration modifiers, in any order here (Lean fixes an order; we only need to skip them). */
export const MODIFIERS = new Set([
  'private',
  'protected',
  'public',
  'noncomputable',
  'unsafe',
  'partial',
  'nonrec',
  'meta',
  ...SCOPE_MODIFIERS,
]);

/** Commands that may prefix another command with `in`. */
export const IN_PREFIX_COMMANDS = new Set(['open', 'set_option', 'include', 'omit', 'variable', '#guard_msgs']);

/** Words that start a command only at a line start, left of or at the current command's column. */
export const SOFT_COMMAND_KEYWORDS = new Set(['open', 'set_option', 'import']);

/** Words that continue the current declaration even at column 0. */
export const CONTINUATION_KEYWORDS = new Set([
  'where',
  'termination_by',
  'termination_by?',
  'decreasing_by',
  'partial_fixpoint',
  'with',
  'extends',
  'then',
  'else',
  'from',
  'at',
  'in',
  'using',
  'fun',
  'do',
  'by',
  'calc',
  'show',
  'have',
  'let',
  'match',
  'if',
  'deriving',
]);

/** Keywords (identifier-shaped) that end with an expression still expected. */
export const EXPECTS_MORE = new Set([
  'by',
  'fun',
  'then',
  'else',
  'do',
  'at',
  'with',
  'from',
  'in',
  'using',
  'calc',
  'show',
  'have',
  'let',
  'match',
  'if',
  'λ',
  'return',
  'suffices',
  'obtain',
]);

/**
 * `#` commands that elaborate or evaluate what follows them and add nothing to the file's scope: where a
 * heartbeat budget matters, and a `set_option … in` around them changes nothing else.
 */
export const ELABORATING_HASH_COMMANDS = new Set(['#check', '#eval', '#eval!', '#reduce', '#synth', '#print']);

/** Known `#` commands (any `#word` at column 0 counts too). */
export const HASH_COMMANDS = new Set([
  ...ELABORATING_HASH_COMMANDS,
  '#check_failure',
  '#exit',
  '#where',
  '#version',
  '#guard_msgs',
  '#check_tactic',
  '#lint',
  '#help',
  '#find',
  '#simp',
  '#norm_num',
  '#conv',
  '#guard',
  '#guard_expr',
  '#time',
  '#count_heartbeats',
  '#adaptation_note',
  '#import_path',
  '#check_assertions',
  '#leansearch',
  '#moogle',
  '#loogle',
  '#find_home',
  '#minimize_imports',
  '#align',
  '#align_import',
  '#noalign',
  '#test',
  '#sample',
  '#explode',
  '#html',
  '#widget',
]);

/**
 * The header's words [lean4 v4.28.0: src/Lean/Parser/Module.lean, `header := optional "module" >> optional "prelude"
 * >> many import`, `import := optional "public" >> optional "meta" >> "import " >> optional "all" >> ident`]: the
 * statements that stand alone, the words before `import`, and those between it and the module name.
 */
export const HEADER_STATEMENTS = new Set(['module', 'prelude']);
export const IMPORT_MODIFIERS = new Set(['public', 'meta', 'private']);
export const IMPORT_OPTIONS = new Set(['all', 'runtime']);
/** Every word of an import statement but its module name. */
export const IMPORT_KEYWORDS = new Set([...IMPORT_MODIFIERS, 'import', ...IMPORT_OPTIONS]);

export const OPENERS: Record<string, string> = {
  '(': ')',
  '[': ']',
  '{': '}',
  '⟨': '⟩',
  '⦃': '⦄',
  '⟦': '⟧',
  '@[': ']',
  '#[': ']',
  '%[': ']',
  '`(': ')',
  '``(': ')',
  '.{': '}',
  '⁅': '⁆',
};
export const CLOSERS = new Set(Object.values(OPENERS));
export const OPENER_SET = new Set(Object.keys(OPENERS));

/**
 * Words that define or run code at elaboration time (elaborators, macros, syntax, initializers, code run by a
 * command or tactic), or mark code the compiler runs unchecked. Such code may read the source itself, comments
 * included (Core.Context's `fileMap`, a syntax's SourceInfo trivia): a text holding one is never taken as the same
 * as another that differs from it in comments (comment-free.ts).
 */
export const CODE_RUNNING_WORDS = new Set([
  'elab',
  'elab_rules',
  'macro',
  'macro_rules',
  'syntax',
  'declare_syntax_cat',
  'initialize',
  'builtin_initialize',
  'run_cmd',
  'run_tac',
  'run_elab',
  'run_meta',
  'by_elab',
  'simproc',
  'dsimproc',
  'simproc_decl',
  'dsimproc_decl',
  'unsafe',
  'implemented_by',
  'extern',
  'attribute',
]);
