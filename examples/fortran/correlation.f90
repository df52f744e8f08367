! Correlation matrix, PolyBench/Fortran style: column means and standard deviations,
! a guard `if` on data, sqrt, triangular loops and a symmetric fill.
! adjc check: --sizes m=5,n=8
subroutine correlation(m, n, data, corr, mean, stddev)
  implicit none
  integer :: m, n
  real(8) :: data(m, n), corr(m, m), mean(m), stddev(m)
  real(8) :: float_n, eps
  integer :: i, j, k

  float_n = dble(n)
  eps = 0.1d0
  do j = 1, m
    mean(j) = 0.0d0
    do i = 1, n
      mean(j) = mean(j) + data(j, i)
    end do
    mean(j) = mean(j) / float_n
  end do
  do j = 1, m
    stddev(j) = 0.0d0
    do i = 1, n
      stddev(j) = stddev(j) + (data(j, i) - mean(j)) * (data(j, i) - mean(j))
    end do
    stddev(j) = stddev(j) / float_n
    stddev(j) = sqrt(stddev(j))
    if (stddev(j) <= eps) then
      stddev(j) = 1.0d0
    end if
  end do
  do i = 1, n
    do j = 1, m
      data(j, i) = data(j, i) - mean(j)
      data(j, i) = data(j, i) / (sqrt(float_n) * stddev(j))
    end do
  end do
  do i = 1, m - 1
    corr(i, i) = 1.0d0
    do j = i + 1, m
      corr(j, i) = 0.0d0
      do k = 1, n
        corr(j, i) = corr(j, i) + data(i, k) * data(j, k)
      end do
      corr(i, j) = corr(j, i)
    end do
  end do
  corr(m, m) = 1.0d0
end subroutine correlation
