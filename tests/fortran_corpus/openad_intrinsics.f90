! In the style of the OpenAD regression suite's intrinsic tests (not a
! copy): a `head` routine over a small fixed-size x and y. Exercises:
! sin, cos, tan, exp, log, sqrt, tanh, atan, abs, sign, max, min, mod of
! reals, ** with real and integer exponents, real(8) declarations.
! corpus: --init x=uniform(0.5,1.5)
subroutine head(x, y)
  double precision, dimension(4) :: x
  double precision, dimension(6) :: y
  y(1) = sin(x(1)) * cos(x(2)) + tan(x(3) / 4.0d0)
  y(2) = exp(x(2)) * log(x(3)) + sqrt(x(4))
  y(3) = tanh(x(1) - x(2)) + atan(x(3))
  y(4) = abs(x(1) - x(4)) + sign(x(2), x(3) - 1.0d0)
  y(5) = max(x(1), x(2), x(3)) * min(x(2), x(4))
  y(6) = mod(x(1) * 3.0d0, x(2)) + x(3)**2.5d0 + x(4)**3
end subroutine head
