import Mathlib

theorem add_zero' (n : Nat) : n + 0 = n := by
  simp

theorem two_eq_two : 2 = 2 := rfl

theorem and_swap (p q : Prop) (h : p ∧ q) : q ∧ p := by
  have hp : p := h.1
  have hq : q := h.2
  exact ⟨hq, hp⟩
