! Multi-resolution tensor contraction, PolyBench/Fortran style; the work array is
! called `sum`, which shadows the intrinsic of that name.
! adjc check: --sizes nr=3,nq=4,np=5
subroutine doitgen(nr, nq, np, a, c4, sum)
  implicit none
  integer :: nr, nq, np
  real(8) :: a(np, nq, nr), c4(np, np), sum(np)
  integer :: r, q, p, s

  do r = 1, nr
    do q = 1, nq
      do p = 1, np
        sum(p) = 0.0d0
        do s = 1, np
          sum(p) = sum(p) + a(s, q, r) * c4(p, s)
        end do
      end do
      do p = 1, np
        a(p, q, r) = sum(p)
      end do
    end do
  end do
end subroutine doitgen
