import Mathlib

theorem two_eq_two : 2 = 2 := rfl
