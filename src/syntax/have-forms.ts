/** The have forms have2sorry rewrites and have2lemma lifts (not obtain/suffices/show/let). */
export const HAVE: ReadonlySet<string> = new Set(['have', 'haveI', "have'"]);
