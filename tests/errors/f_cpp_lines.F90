! expect: 10:3: a backward `goto 10` (a loop) is not supported
#define N 10
#define DATA_TYPE real(8)



subroutine k(x)
  DATA_TYPE :: x(N)
10 x = 2.0d0 * x
  goto 10
  continue
end subroutine
