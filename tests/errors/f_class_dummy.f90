! expect: 10:3: polymorphic `class(...)` declarations are not supported
module shapes
  type :: state
    real(8) :: v
  end type state
end module shapes
subroutine k(x, s)
  use shapes
  real(8) :: x
  class(state) :: s
  x = 2.0d0 * s%v
end subroutine
