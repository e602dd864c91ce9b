/-
The Lean side of extract_decls / extract_theorems (src/tools/extract-lean.ts sends this file
as one REPL command right after the header, before the user's commands; see the README,
"extract_decls: the Lean helper"). It needs the `Lean` package in the environment (Mathlib
and Batteries bring it; for a header without imports the tool adds `import Lean`).

Two commands, both printing one info message `<marker> <json>` that the TypeScript side
parses with a zod schema (src/tools/extract-lean.ts):
* `#lean_tool_measure <command>` elaborates the command exactly as Lean would (like
  Mathlib's `#count_heartbeats in`, [mathlib v4.28.0: Mathlib/Util/CountHeartbeats.lean]: `IO.getNumHeartbeats`
  around `elabCommand`) and prints `lean_tool_measure {"wall_ms":…,"heartbeats":…}`.
* `#lean_tool_info <name> <namespace> (<opens>…) <written names>…` prints `lean_tool_info {…}`:
  the constant's pretty-printed type, hashes, depths, sorry flag, immediate dependencies, and
  the imported constants its written names denote from the declaration's scope.

Every API used is long-stable core API; where each is defined in leanprover/lean4 (paths at tag v4.28.0):
  Expr.hash, Expr.approxDepth (255 cap)  src/Lean/Expr.lean (hash ignores binder names and
                                          binder info: `.forallE _ t b _ => mixHash d (mixHash t.hash b.hash)`)
  Expr.instantiateLevelParams            src/Lean/Util/InstantiateLevelParams.lean
  Expr.getUsedConstants                  src/Lean/Util/FoldConsts.lean
  Expr.hasSorry                          src/Lean/Util/Sorry.lean
  Meta.deltaExpand                       src/Lean/Meta/Tactic/Delta.lean
  Core.transform, TransformStep.done     src/Lean/Meta/Transform.lean
  isMatcherCore                          src/Lean/Meta/Match/MatcherInfo.lean
  Name.isInternal, isPrivateName, privateToUserName?, mkPrivateName
                                          src/Lean/Data/Name.lean, src/Lean/PrivateName.lean, src/Lean/Modifiers.lean
  Environment.getModuleIdxFor?, find?    src/Lean/Environment.lean
  ResolveName.resolveGlobalName, OpenDecl.simple
                                          src/Lean/ResolveName.lean, src/Lean/Data/OpenDecl.lean
  Command.withScope, elabCommand, liftTermElabM
                                          src/Lean/Elab/Command.lean
  Elab.async (Option Bool, default false, forced true by the cmdline driver)
                                          src/Lean/CoreM.lean (register_builtin_option)
  IO.getNumHeartbeats, IO.monoNanosNow   src/Init/System/IO.lean
-/
namespace _lean_tool_extract
open Lean Elab Command Meta

/-- `#lean_tool_measure cmd`: elaborate `cmd` and report its wall time and heartbeats. -/
syntax (name := measure) "#lean_tool_measure " command : command

/-- Elaborate the wrapped command, synchronously (`Elab.async` off, so proofs are not left to
background tasks this command would not see), and report wall time and heartbeats in the
unit of `maxHeartbeats` (thousands). -/
@[command_elab measure] def elabMeasure : CommandElab := fun stx => do
  let t0 ← IO.monoNanosNow
  let h0 ← IO.getNumHeartbeats
  try
    withScope (fun s => { s with opts := Elab.async.set s.opts false }) do
      elabCommand stx[1]
  finally
    let h1 ← IO.getNumHeartbeats
    let t1 ← IO.monoNanosNow
    let j := Json.mkObj [("wall_ms", toJson ((t1 - t0) / 1000000)), ("heartbeats", toJson ((h1 - h0) / 1000))]
    logInfo m!"lean_tool_measure {j.compress}"

/-- Whether a name's last component is an auxiliary proof's (`f.proof_1`). -/
def isProofAux : Name → Bool
  | .str _ s => s.startsWith "proof_"
  | _ => false

/-- Auxiliary constants Lean's elaborator generates in this module: matchers (`f.match_1`),
auxiliary lemmas and proofs (`_auxLemma.3`, `f._proof_1`, `f.proof_1`, `_simp_…`), and other
internal names; private user declarations are not auxiliaries. -/
def isLocalAux (env : Environment) (n : Name) : Bool :=
  (env.getModuleIdxFor? n).isNone && !isPrivateName n && (isMatcherCore env n || n.isInternal || isProofAux n)

/-- Without annotations (`Expr.mdata`): they carry no meaning for the kernel but change the
hash (`.mdata _ e => mixHash d e.hash` with the depth, Expr.lean). `Core.transform` post-order,
src/Lean/Meta/Transform.lean. -/
def stripMData (e : Expr) : CoreM Expr :=
  Core.transform e (post := fun e => pure <| .done <| match e with
    | .mdata _ b => b
    | e => e)

/-- The name users know a constant by (private names without their module prefix). -/
def userName (n : Name) : String := ((privateToUserName? n).getD n).toString

/-- Immediate constants of `e`, without `self`, split into declared here / imported. -/
def splitDeps (env : Environment) (self : Name) (e : Expr) : Array String × Array String := Id.run do
  let mut loc : Array String := #[]
  let mut ext : Array String := #[]
  for c in e.getUsedConstants do
    if c == self then continue
    if (env.getModuleIdxFor? c).isNone then loc := loc.push (userName c) else ext := ext.push (userName c)
  return (loc, ext)

/-- The imported constants the written names denote from namespace `ns` with `opens`, as Lean
resolves identifiers (`ResolveName.resolveGlobalName`, src/Lean/ResolveName.lean: namespace,
exact and `_root_`, opened namespaces; a trailing field access such as `h.symm` resolves its
head). Names denoting no constant (bound variables, auto-bound implicits) are left out, and
so are this file's own constants (the source model lists those). -/
def resolveWritten (env : Environment) (ns : Name) (opens : Array Name) (written : Array Name) : Array String := Id.run do
  let openDecls := opens.toList.map fun o => OpenDecl.simple o []
  let mut out : Array String := #[]
  for w in written do
    let cands := ResolveName.resolveGlobalName env ns openDecls w
    let exact := cands.filter (·.2.isEmpty)
    match (if exact.isEmpty then cands else exact).head? with
    | some (c, _) =>
      let u := userName c
      if (env.getModuleIdxFor? c).isSome && !out.contains u then out := out.push u
    | none => pure ()
  return out

/-- `#lean_tool_info name ns (opens…) written…`: `ns` is `_root_` for the root namespace. -/
syntax (name := info) "#lean_tool_info " ident ident "(" ident* ")" ident* : command

/-- Elaborate `#lean_tool_info`: report the declaration's facts as one JSON info message. -/
@[command_elab info] def elabInfo : CommandElab := fun stx => do
  let env ← getEnv
  let n := stx[1].getId
  let some ci := (env.find? n).orElse fun _ => env.find? (mkPrivateName env n)
    | logInfo m!"lean_tool_info {(Json.mkObj [("name", toJson n.toString), ("error", toJson "unknown constant")]).compress}"
  -- Alpha-invariant canonical form: binder names are not hashed (Expr.lean); universe
  -- parameters are renamed by position so `.{u}` and `.{v}` agree.
  let canon := (List.range ci.levelParams.length).map fun i => Level.param (Name.mkSimple s!"u_{i + 1}")
  let canonical (e : Expr) := e.instantiateLevelParams ci.levelParams canon
  let (typeStr, plainType, unfoldedType, unfoldedValue) ← liftTermElabM do
    let fmt ← ppExpr ci.type
    let plain ← stripMData ci.type
    let t ← stripMData (← deltaExpand ci.type (isLocalAux env))
    let v ← match ci.value? with
      | some v => some <$> deltaExpand v (isLocalAux env)
      | none => pure none
    return (toString fmt, plain, t, v)
  let (lt, et) := splitDeps env ci.name unfoldedType
  let (lv, ev) := match unfoldedValue with
    | some v => splitDeps env ci.name v
    | none => (#[], #[])
  let ns := if stx[2].getId == `_root_ then Name.anonymous else stx[2].getId
  let written := resolveWritten env ns (stx[4].getArgs.map (·.getId)) (stx[6].getArgs.map (·.getId))
  let j := Json.mkObj [
    ("name", toJson (userName ci.name)),
    ("type", toJson typeStr),
    ("type_hash", toJson (canonical plainType).hash.toNat),
    ("unfolded_type_hash", toJson (canonical unfoldedType).hash.toNat),
    ("type_depth", toJson ci.type.approxDepth.toNat),
    ("term_depth", toJson ((ci.value?.map (·.approxDepth.toNat)).getD 0)),
    ("is_sorry", toJson (unfoldedType.hasSorry || (unfoldedValue.map (·.hasSorry)).getD false)),
    ("local_type_dependencies", toJson lt),
    ("external_type_dependencies", toJson et),
    ("local_value_dependencies", toJson lv),
    ("external_value_dependencies", toJson ev),
    ("external_syntactic_dependencies", toJson written)]
  logInfo m!"lean_tool_info {j.compress}"

end _lean_tool_extract
